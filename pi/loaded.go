package pi

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
)

// A Loaded is what pi sends of a session when it goes on with it: the
// text of every entry it loads, its last compaction's summary ("" when it
// compacted none) and the first line it loads the entries of (1-based).
type Loaded struct {
	Text     string
	Summary  string
	FromLine int
}

// LoadedView returns what pi loads of a session made of lines: on the
// active path ([OffPath]), its last compaction's summary, then the entries
// from the one the compaction kept from (pi puts the summary first and
// drops what precedes that entry); with no compaction, every entry on the
// path. Text holds the messages' text, calls' names and string arguments, tools'
// results and extensions' messages.
func LoadedView(lines [][]byte) Loaded {
	ls := make([]*cairn.Line, len(lines))
	for i, raw := range lines {
		ls[i] = &cairn.Line{No: i + 1, Raw: raw}
	}
	off := OffPath(ls)
	v := Loaded{FromLine: 1}
	line := map[string]int{}
	for _, l := range ls {
		e, typ, _ := parseLine(l.Raw)
		if e == nil || off[l.No] {
			continue
		}
		line[e.ID] = l.No
		if typ == typeCompaction {
			v.Summary, v.FromLine = e.Summary, l.No
			if n, ok := line[e.FirstKeptEntryID]; ok {
				v.FromLine = n
			}
		}
	}
	var b strings.Builder
	if v.Summary != "" {
		b.WriteString(v.Summary)
	}
	for _, l := range ls[v.FromLine-1:] {
		e, typ, _ := parseLine(l.Raw)
		if e == nil || off[l.No] || typ == typeCompaction {
			continue
		}
		if t := entryText(e, typ); t != "" {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(t)
		}
	}
	v.Text = b.String()
	return v
}

// entryText is what the model reads of an entry.
func entryText(e *entry, typ string) string {
	switch typ {
	case typeCustomMessage:
		return text(parts(e.Content))
	case typeBranchSummary:
		return e.Summary
	case typeMessage:
	default:
		return ""
	}
	m := e.Message
	if m == nil {
		return ""
	}
	var out []string
	if m.Command != "" {
		out = append(out, m.Command, m.Output)
	}
	if t := text(parts(m.Content)); t != "" {
		out = append(out, t)
	}
	for _, p := range parts(m.Content) {
		if p.Type == "toolCall" {
			out = append(out, p.Name)
			var args map[string]any
			_ = json.Unmarshal(p.Arguments, &args)
			for _, k := range slices.Sorted(maps.Keys(args)) {
				if v, ok := args[k].(string); ok {
					out = append(out, v)
				}
			}
		}
	}
	if m.Summary != "" {
		out = append(out, m.Summary)
	}
	return strings.Join(out, "\n")
}
