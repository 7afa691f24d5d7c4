package redact

import (
	"bytes"
	"encoding/json"
)

// JSON returns the JSON document doc with the secrets of each of its
// strings replaced, as [Redactor.String] replaces them, and every other
// byte as it was. Redacting the serialized document instead lets a rule
// that spans lines (a private key) match from one value across quotes
// into others, and its replacement break the document. A doc that is not
// JSON is redacted as text.
func (r *Redactor) JSON(doc []byte) []byte {
	out, _ := r.json(doc, r.String)
	return out
}

// Values is [Redactor.String] of a JSON document's strings, each alone
// ([Redactor.JSON]); text that is not one JSON document is redacted
// whole. What leaves an edge as JSON goes through it.
func (r *Redactor) Values(doc string) (string, []Finding) {
	out, found := r.json([]byte(doc), r.String)
	return string(out), found
}

// ValueSecrets is [Redactor.Secrets] of a JSON document's strings, each
// alone: for a transcript's raw lines, which no ellipsis cut.
func (r *Redactor) ValueSecrets(doc string) (string, []Finding) {
	out, found := r.json([]byte(doc), r.Secrets)
	return string(out), found
}

// json returns doc with each string's secrets replaced by redact, and
// the findings; doc whole when it is not JSON.
func (r *Redactor) json(doc []byte, redact func(string) (string, []Finding)) ([]byte, []Finding) {
	if !json.Valid(doc) {
		out, found := redact(string(doc))
		return []byte(out), found
	}
	var all []Finding
	var b bytes.Buffer
	pos := 0
	for i := 0; i < len(doc); i++ {
		if doc[i] != '"' {
			continue
		}
		end := i + 1
		for end < len(doc) && doc[end] != '"' {
			if doc[end] == '\\' {
				end++
			}
			end++
		}
		end++ // past the closing quote
		lit := doc[i:end]
		var s string
		if json.Unmarshal(lit, &s) == nil {
			if red, found := redact(s); len(found) > 0 || red != s {
				all = append(all, found...)
				b.Write(doc[pos:i])
				b.Write(quote(red))
				pos = end
			}
		}
		i = end - 1
	}
	if pos == 0 {
		return doc, all
	}
	b.Write(doc[pos:])
	return b.Bytes(), all
}

// quote returns s as a JSON string, without escaping <, > and &.
func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
