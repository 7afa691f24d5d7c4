package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// An object is a JSON object whose members keep their order and their
// bytes: a line rewritten through it differs from the original only in the
// members that were set.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func decodeObject(raw []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil {
		return nil, err
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	o := &object{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	return o, nil
}

func (o *object) get(k string) json.RawMessage { return o.vals[k] }

func (o *object) set(k string, v any) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		raw = mustMarshal(v)
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = raw
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

func (o *object) str(k string) string {
	var s string
	_ = json.Unmarshal(o.vals[k], &s)
	return s
}

func (o *object) bool(k string) bool { return string(o.vals[k]) == "true" }

// appendTo appends the object as one compact line with its terminator.
func (o *object) appendTo(buf []byte) []byte {
	buf = append(buf, '{')
	for i, k := range o.keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, mustMarshal(k)...)
		buf = append(buf, ':')
		buf = append(buf, o.vals[k]...)
	}
	return append(buf, '}', '\n')
}

// mustMarshal encodes v without HTML escaping, as Claude Code writes JSON.
func mustMarshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only values built here are encoded
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
