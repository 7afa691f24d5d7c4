// Package jsonw writes JSON the way clients written in JavaScript do
// (JSON.stringify): no HTML escaping, and objects whose keys stay in the
// order given, so that a session cairn writes for such a client reads as
// one the client wrote.
package jsonw

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v as JSON.stringify does: no HTML escaping, no
// trailing newline. It panics on a value encoding/json refuses, which
// only a programming error gives.
func Marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Ordered encodes key, value pairs as one object, in the order given,
// each key and value as [Marshal] does.
func Ordered(kv ...any) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(Marshal(kv[i]))
		b.WriteByte(':')
		b.Write(Marshal(kv[i+1]))
	}
	b.WriteByte('}')
	return b.Bytes()
}
