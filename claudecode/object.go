package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// An object is a JSON object whose members keep their order and their
// bytes: a line rewritten through it differs from the original only in the
// members that were set. Members are a slice, not a map: a transcript line
// has a score of them, and an export handles tens of thousands of lines.
type object struct {
	members []member
}

type member struct {
	name []byte // the decoded name
	key  []byte // the name as written, quotes included; nil when set by name
	val  json.RawMessage
}

func (o *object) find(k string) int {
	for i := range o.members {
		if string(o.members[i].name) == k {
			return i
		}
	}
	return -1
}

// decodeObject splits a JSON object into its members without decoding
// their values. raw must be valid JSON (a line that parsed).
func decodeObject(raw []byte) (*object, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	o := &object{members: make([]member, 0, 16)}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] != '}' {
		if raw[i] != '"' {
			return nil, fmt.Errorf("offset %d: want a member name", i)
		}
		end := scanValue(raw, i)
		if end > len(raw) {
			return nil, fmt.Errorf("offset %d: unterminated name", i)
		}
		key, name := raw[i:end:end], raw[i+1:end-1:end-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			var k string
			if err := json.Unmarshal(key, &k); err != nil {
				return nil, err
			}
			name = []byte(k)
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, fmt.Errorf("offset %d: want ':'", i)
		}
		i = skipSpace(raw, i+1)
		end = scanValue(raw, i)
		if end <= i || end > len(raw) {
			return nil, fmt.Errorf("offset %d: bad value", i)
		}
		if j := o.find(string(name)); j >= 0 {
			o.members[j].val = raw[i:end:end] // a repeated name: the last value wins, in the first place
		} else {
			o.members = append(o.members, member{name, key, raw[i:end:end]})
		}
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	if i >= len(raw) {
		return nil, fmt.Errorf("unterminated object")
	}
	return o, nil
}

// splitArray returns the elements of a JSON array without decoding them.
func splitArray(raw []byte) ([]json.RawMessage, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	var out []json.RawMessage
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] != ']' {
		end := scanValue(raw, i)
		if end <= i || end > len(raw) {
			return nil, false
		}
		out = append(out, raw[i:end:end])
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return out, i < len(raw)
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// scanValue returns the offset just past the JSON value starting at i.
func scanValue(raw []byte, i int) int {
	if i >= len(raw) {
		return i
	}
	switch raw[i] {
	case '"':
		for j := i + 1; j < len(raw); j++ {
			switch raw[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(raw) + 1
	case '{', '[':
		depth := 0
		for j := i; j < len(raw); j++ {
			switch raw[j] {
			case '"':
				j = scanValue(raw, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(raw) + 1
	}
	j := i
	for j < len(raw) && raw[j] != ',' && raw[j] != '}' && raw[j] != ']' && raw[j] != ' ' && raw[j] != '\n' && raw[j] != '\r' && raw[j] != '\t' {
		j++
	}
	return j
}

func (o *object) get(k string) json.RawMessage {
	if i := o.find(k); i >= 0 {
		return o.members[i].val
	}
	return nil
}

func (o *object) set(k string, v any) {
	var raw json.RawMessage
	switch v := v.(type) {
	case json.RawMessage:
		raw = v
	case string:
		raw = appendQuoted(nil, v)
	case bool:
		raw = json.RawMessage(strconv.FormatBool(v))
	default:
		raw = mustMarshal(v)
	}
	if i := o.find(k); i >= 0 {
		o.members[i].val = raw
		return
	}
	o.members = append(o.members, member{name: []byte(k), val: raw})
}

func (o *object) del(k string) {
	if i := o.find(k); i >= 0 {
		o.members = append(o.members[:i:i], o.members[i+1:]...)
	}
}

func (o *object) str(k string) string {
	raw := o.get(k)
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]) // no escapes: the bytes are the string
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func (o *object) bool(k string) bool { return string(o.get(k)) == "true" }

// appendTo appends the object as one compact line with its terminator.
func (o *object) appendTo(buf []byte) []byte {
	if buf == nil {
		n := 3
		for _, m := range o.members {
			n += len(m.key) + len(m.name) + 3 + len(m.val)
		}
		buf = make([]byte, 0, n)
	}
	buf = append(buf, '{')
	for i, m := range o.members {
		if i > 0 {
			buf = append(buf, ',')
		}
		if m.key != nil {
			buf = append(buf, m.key...)
		} else {
			buf = appendQuoted(buf, string(m.name))
		}
		buf = append(buf, ':')
		buf = append(buf, m.val...)
	}
	return append(buf, '}', '\n')
}

// quote appends s as a JSON string: plain ASCII directly, anything else
// through encoding/json.
func appendQuoted(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return append(buf, mustMarshal(s)...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
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
