package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// An object is a JSON object whose members keep their order and their
// bytes: a rewritten line changes only the members cairn sets.
type object struct {
	members []member
}

type member struct {
	key   string
	value json.RawMessage
}

// decodeObject reads one JSON object, its values left as they were written.
func decodeObject(raw []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	o := &object{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.members = append(o.members, member{key, v})
	}
	return o, nil
}

// get returns a member's raw value, nil if absent.
func (o *object) get(key string) json.RawMessage {
	for _, m := range o.members {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

// set replaces a member's value, or appends the member.
func (o *object) set(key string, v any) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		raw = marshal(v)
	}
	for i := range o.members {
		if o.members[i].key == key {
			o.members[i].value = raw
			return
		}
	}
	o.members = append(o.members, member{key, raw})
}

// bytes returns the object as one line with its terminator.
func (o *object) bytes() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o.members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(m.key))
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// marshal encodes v as Codex writes JSON: no HTML escaping.
func marshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// obj builds an object from key, value pairs, in order.
func obj(kv ...any) *object {
	o := &object{}
	for i := 0; i < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}
