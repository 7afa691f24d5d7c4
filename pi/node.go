package pi

import (
	"bytes"
	"strings"
)

// A node is what the tree of a session reads of one line: the entry's
// type, id and parent (nil for a root), and whether the line is an entry
// at all ([parseLine] reads it as one).
type node struct {
	typ, id string
	parent  *string
	entry   bool
}

// readNode reads a line's type, id and parentId without decoding the rest
// of it. pi writes them as the first keys of each entry, so the line is
// read only up to them (values before them skipped, not decoded); a line
// where they are not plain strings (or null), or that repeats one, is
// read whole by [parseLine]. A line whose beginning reads
// but whose rest is damaged is an entry all the same: its id still links
// the tree, so one damaged line does not cut the path pi resumes from.
func readNode(raw []byte) node {
	if n, ok := scanNode(raw); ok {
		return n
	}
	e, typ, _ := parseLine(raw)
	if e == nil {
		return node{}
	}
	return node{typ: typ, id: e.ID, parent: e.ParentID, entry: true}
}

// scanNode is readNode's reading of the first keys; ok false when the
// line must be read whole.
func scanNode(raw []byte) (n node, ok bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return node{}, false
	}
	var seenType, seenID, seenParent bool
	i := skipSpace(t, 1)
	if i < len(t) && t[i] == '}' {
		return node{entry: true}, i == len(t)-1
	}
	for {
		key, next, ok := plainString(t, i)
		if !ok {
			return node{}, false
		}
		i = skipSpace(t, next)
		if i >= len(t) || t[i] != ':' {
			return node{}, false
		}
		i = skipSpace(t, i+1)
		if i >= len(t) {
			return node{}, false
		}
		switch key {
		case "type", "id", "parentId":
			var v *string
			if bytes.HasPrefix(t[i:], []byte("null")) {
				i += 4
			} else {
				s, next, ok := plainString(t, i)
				if !ok {
					return node{}, false
				}
				v, i = &s, next
			}
			switch {
			case key == "type" && !seenType && v != nil:
				seenType, n.typ = true, *v
			case key == "id" && !seenID && v != nil:
				seenID, n.id = true, *v
			case key == "parentId" && !seenParent:
				seenParent, n.parent = true, v
			default:
				return node{}, false
			}
			if seenType && seenID && seenParent {
				n.entry = true
				return n, true
			}
		default:
			if strings.EqualFold(key, "type") || strings.EqualFold(key, "id") || strings.EqualFold(key, "parentId") {
				return node{}, false // encoding/json would read it as one of them
			}
			if i, ok = skipValue(t, i); !ok {
				return node{}, false
			}
		}
		i = skipSpace(t, i)
		switch {
		case i < len(t) && t[i] == ',':
			i = skipSpace(t, i+1)
		case i == len(t)-1 && t[i] == '}':
			n.entry = true
			return n, true
		default:
			return node{}, false
		}
	}
}

// plainString reads the JSON string at t[i]: one of ASCII characters
// without escapes, else ok is false.
func plainString(t []byte, i int) (string, int, bool) {
	if i >= len(t) || t[i] != '"' {
		return "", i, false
	}
	for j := i + 1; j < len(t); j++ {
		switch c := t[j]; {
		case c == '"':
			return string(t[i+1 : j]), j + 1, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return "", i, false
		}
	}
	return "", i, false
}

// skipValue skips the value at t[i]: a string, a number, true, false,
// null, or an object or array read only for where it ends (its strings
// and brackets).
func skipValue(t []byte, i int) (int, bool) {
	switch t[i] {
	case '"':
		return skipString(t, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(t); j++ {
			switch t[j] {
			case '"':
				end, ok := skipString(t, j)
				if !ok {
					return i, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return i, false
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(t[i:], []byte(lit)) {
			return i + len(lit), true
		}
	}
	j := i
	for j < len(t) && (t[j] >= '0' && t[j] <= '9' || t[j] == '-' || t[j] == '+' || t[j] == '.' || t[j] == 'e' || t[j] == 'E') {
		j++
	}
	return j, j > i
}

// skipString skips the string at t[i], escapes and all.
func skipString(t []byte, i int) (int, bool) {
	for j := i + 1; j < len(t); j++ {
		switch t[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return i, false
}

func skipSpace(t []byte, i int) int {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r') {
		i++
	}
	return i
}
