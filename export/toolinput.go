package export

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ToolInput renders a tool call's JSON input as a person reads it, not as
// escaped JSON: a shell command in a sh block exactly as it was run, a
// path as a path, a value of several lines (or with edge spaces) as
// written in a block of its own, and any other field as "key: value",
// in the order the input has them. Blocks are fenced longer than any
// backtick run the text holds. An input that is not a JSON object is
// shown as it is, fenced as JSON.
func ToolInput(input string) string {
	fields, ok := orderedFields(input)
	if !ok {
		return fence(input, "json")
	}
	if len(fields) == 0 {
		return "(no input)"
	}
	var parts []string
	var lines []string // "key: value" lines not yet written
	flush := func() {
		if len(lines) > 0 {
			parts = append(parts, strings.Join(lines, "\n"))
			lines = nil
		}
	}
	for _, f := range fields {
		s, isString := f.text()
		switch {
		case isString && shellKey(f.key):
			flush()
			parts = append(parts, fenceExact(s, "sh"))
		case shellKey(f.key) && f.argv() != "":
			flush()
			parts = append(parts, fenceExact(f.argv(), "sh"))
		case isString && (strings.Contains(s, "\n") || s != strings.TrimSpace(s)):
			flush()
			parts = append(parts, f.key+":\n\n"+fenceExact(s, ""))
		case isString:
			lines = append(lines, f.key+": "+s)
		default:
			lines = append(lines, f.key+": "+compactJSON(f.raw))
		}
	}
	flush()
	return strings.Join(parts, "\n\n")
}

// shellKey reports whether a string field named key holds a shell command
// as it was run (Claude Code's Bash, Gemini CLI's run_shell_command,
// opencode's bash).
func shellKey(key string) bool { return key == "command" || key == "cmd" }

type inputField struct {
	key string
	raw json.RawMessage
}

// text returns the field's value when it is a JSON string.
func (f inputField) text() (string, bool) {
	var s string
	return s, len(f.raw) > 0 && f.raw[0] == '"' && json.Unmarshal(f.raw, &s) == nil
}

// argv returns a command given as a JSON array of strings (Codex's shell
// call) as the line a shell runs: a "sh -c SCRIPT" (bash, -lc, …) as its script, else the
// words, each quoted where the shell would read it otherwise.
func (f inputField) argv() string {
	var words []string
	if len(f.raw) == 0 || f.raw[0] != '[' || json.Unmarshal(f.raw, &words) != nil || len(words) == 0 {
		return ""
	}
	if len(words) == 3 && strings.HasPrefix(words[1], "-") && strings.HasSuffix(words[1], "c") {
		switch strings.TrimPrefix(words[0], "/bin/") {
		case "sh", "bash", "zsh", "dash":
			return words[2]
		}
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
	}
	return strings.Join(quoted, " ")
}

// shellQuote quotes w in single quotes when a shell would split or expand it.
func shellQuote(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// orderedFields returns a JSON object's fields in the order written;
// false if input is not an object.
func orderedFields(input string) ([]inputField, bool) {
	dec := json.NewDecoder(strings.NewReader(input))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []inputField
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		out = append(out, inputField{key: key, raw: raw})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	return out, true
}

// compactJSON is raw without insignificant spaces, in its own key order,
// its strings with only the escapes JSON needs (no \u003c for <).
func compactJSON(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	type level struct{ object, first, key bool }
	var stack []level
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			if d, ok := tok.(json.Delim); !ok || d == '{' || d == '[' {
				if !top.first && (!top.object || top.key) {
					b.WriteByte(',')
				}
				if top.object && !top.key {
					b.WriteByte(':')
				}
				top.first = false
				if top.object {
					top.key = !top.key
				}
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			b.WriteRune(rune(v))
			if v == '{' || v == '[' {
				stack = append(stack, level{object: v == '{', first: true, key: true})
			} else if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case json.Number:
			b.WriteString(v.String())
		default:
			_ = enc.Encode(v)
			b.Truncate(b.Len() - 1) // the encoder's newline
		}
	}
	if !json.Valid(raw) {
		return string(raw)
	}
	return b.String()
}

// fenceExact fences s as [fence] does but keeps it byte for byte, but for
// one final newline, which the closing fence stands for.
func fenceExact(s, lang string) string {
	ticks := "```"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + lang + "\n" + strings.TrimSuffix(s, "\n") + "\n" + ticks
}
