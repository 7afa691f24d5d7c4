package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// A schema is the shape a JSON workspace file must have. It is checked by
// hand rather than by a library so that every complaint can name the file,
// line and column a person has to fix. Fields a schema does not name are
// allowed and kept.
type schema struct {
	kind     string // "object", "array", "string", "timestamp"
	nullable bool
	enum     []string
	fields   []field // object
	elem     *schema // array
	unique   string  // array of objects: this field's values must differ
}

type field struct {
	name     string
	required bool
	schema   *schema
}

var (
	str         = &schema{kind: "string"}
	strs        = &schema{kind: "array", elem: str}
	timestamp   = &schema{kind: "timestamp"}
	timestampOr = &schema{kind: "timestamp", nullable: true}
)

var stateSchema = &schema{kind: "object", fields: []field{
	{"phase", false, str},
	{"current_task", false, str},
	{"progress", false, &schema{kind: "object", fields: []field{
		{"completed", false, strs},
		{"in_progress", false, str},
		{"blocked", false, strs},
		{"next_steps", false, strs},
	}}},
	{"last_update", false, timestamp},
	{"session_id", false, str},
	{"notes", false, str},
	{"handoffs", false, &schema{kind: "array", unique: "id", elem: &schema{kind: "object", fields: []field{
		{"id", true, str},
		{"task", true, str},
		{"expected", false, str},
		{"status", true, &schema{kind: "string", enum: []string{cairn.HandoffOpen, cairn.HandoffDone}}},
		{"parent", false, str},
		{"child", false, str},
		{"created", false, timestamp},
		{"done", false, timestampOr},
		{"result", false, str},
	}}}},
}}

var todosSchema = &schema{kind: "object", fields: []field{
	{"todos", false, &schema{kind: "array", unique: "id", elem: &schema{kind: "object", fields: []field{
		{"id", true, str},
		{"title", true, str},
		{"priority", false, &schema{kind: "string", enum: []string{cairn.PriorityHigh, cairn.PriorityMedium, cairn.PriorityLow}}},
		{"status", true, &schema{kind: "string", enum: []string{cairn.TodoPending, cairn.TodoInProgress, cairn.TodoCompleted, cairn.TodoBlocked}}},
		{"created", false, timestamp},
		{"updated", false, timestampOr},
		{"completed_at", false, timestampOr},
		{"notes", false, str},
	}}}},
	{"last_review", false, timestampOr},
}}

// decodeJSON checks data against s and decodes it into v. Any problem is
// an EINVALID error that names the file, line and column. A UTF-8 byte
// order mark, which some editors write, is skipped (RFC 8259 §8.1 lets a
// reader ignore it), so it is neither an error nor a column.
func decodeJSON(name string, data []byte, s *schema, v any) error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return invalidAt(name, data, syntax.Offset-1, strings.TrimPrefix(err.Error(), "json: "))
		}
		return fmt.Errorf("read %s: %w", name, err)
	}
	if path, msg := s.check(tree, nil); msg != "" {
		return invalidAt(name, data, locate(data, path), fmt.Sprintf("%s: %s", pathString(path), msg))
	}
	if err := json.Unmarshal(data, v); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return invalidAt(name, data, typ.Offset, err.Error())
		}
		return cairn.Errorf(cairn.EINVALID, "%s: %s (the file is left as it is: fix it by hand)", name, err)
	}
	return nil
}

// encodeJSON renders v the way cairn writes JSON files: two-space indent,
// no HTML escaping, a final newline.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return buf.Bytes(), nil
}

func invalidAt(name string, data []byte, off int64, msg string) error {
	line, col := position(data, off)
	return cairn.Errorf(cairn.EINVALID, "%s:%d:%d: %s (the file is left as it is: fix it by hand)", name, line, col, msg)
}

// position turns a byte offset into a 1-based line and column (in
// characters).
func position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[start:]) + 1
}

// check returns the path to the first value of tree that does not fit s
// and what is wrong with it, or an empty message.
func (s *schema) check(v any, path []any) ([]any, string) {
	if v == nil {
		if s.nullable {
			return nil, ""
		}
		return path, "want " + s.describe() + ", got null"
	}
	switch s.kind {
	case "string", "timestamp":
		str, ok := v.(string)
		if !ok {
			return path, fmt.Sprintf("want %s, got %s", s.describe(), jsonKind(v))
		}
		if s.kind == "timestamp" {
			if _, err := time.Parse(time.RFC3339, str); err != nil {
				return path, fmt.Sprintf("want a time such as 2026-04-20T10:00:00+08:00, got %q", str)
			}
		}
		if len(s.enum) > 0 && !contains(s.enum, str) {
			return path, fmt.Sprintf("want one of %s, got %q", strings.Join(s.enum, ", "), str)
		}
	case "integer":
		n, ok := v.(float64)
		if !ok || n != float64(int64(n)) {
			return path, fmt.Sprintf("want %s, got %s", s.describe(), jsonKind(v))
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			return path, fmt.Sprintf("want %s, got %s", s.describe(), jsonKind(v))
		}
		seen := map[string]bool{}
		for i, item := range items {
			p := append(path[:len(path):len(path)], i)
			if p, msg := s.elem.check(item, p); msg != "" {
				return p, msg
			}
			if s.unique == "" {
				continue
			}
			if id, _ := item.(map[string]any)[s.unique].(string); seen[id] {
				return append(p, s.unique), fmt.Sprintf("%q is used twice", id)
			} else {
				seen[id] = true
			}
		}
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return path, fmt.Sprintf("want %s, got %s", s.describe(), jsonKind(v))
		}
		known := map[string]bool{}
		for _, f := range s.fields {
			known[f.name] = true
			item, ok := obj[f.name]
			if !ok {
				if f.required {
					return path, fmt.Sprintf("field %q is missing", f.name)
				}
				continue
			}
			if p, msg := f.schema.check(item, append(path[:len(path):len(path)], f.name)); msg != "" {
				return p, msg
			}
		}
		// encoding/json matches names without regard to case, so "Phase"
		// would be read as "phase" and then written twice: refuse it.
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, f := range s.fields {
				if !known[k] && strings.EqualFold(k, f.name) {
					return append(path[:len(path):len(path)], k), fmt.Sprintf("unknown field %q: did you mean %q?", k, f.name)
				}
			}
		}
	}
	return nil, ""
}

func (s *schema) describe() string {
	switch s.kind {
	case "array":
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(s.elem.describe(), "a "), "an ") + "s"
	case "timestamp":
		return "a time"
	case "integer":
		return "a whole number"
	}
	if s.kind == "object" {
		return "an object"
	}
	return "a " + s.kind
}

func jsonKind(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pathString writes a path the way a person would: progress.next_steps[2].
func pathString(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch p := p.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		}
	}
	if b.Len() == 0 {
		return "top level"
	}
	return b.String()
}

// locate returns the byte offset where the value at path starts in data,
// which is valid JSON, or 0 if it cannot find it.
func locate(data []byte, path []any) int64 {
	dec := json.NewDecoder(bytes.NewReader(data))
	for _, p := range path {
		tok, err := dec.Token()
		if err != nil {
			return 0
		}
		switch p := p.(type) {
		case string:
			if tok != json.Delim('{') {
				return 0
			}
			for {
				if !dec.More() {
					return 0
				}
				key, err := dec.Token()
				if err != nil {
					return 0
				} else if key == p {
					break
				} else if !skipValue(dec) {
					return 0
				}
			}
		case int:
			if tok != json.Delim('[') {
				return 0
			}
			for range p {
				if !skipValue(dec) {
					return 0
				}
			}
		}
	}
	off := dec.InputOffset()
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n:,", data[off]) >= 0 {
		off++
	}
	return off
}

// skipValue reads one whole value from dec.
func skipValue(dec *json.Decoder) bool {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return true
		}
	}
}
