package claudecode

import (
	"bytes"
	"strings"

	"github.com/cairn-dev/cairn"
)

// A Loaded is what the client sends the model when it resumes a session
// file: the conversation from the last compact_boundary on (with the
// compaction summary that follows it), as text, and the client's own
// compaction summary when the session has one.
type Loaded struct {
	// FromLine is the first line the client loads, 1-based: the last
	// compact_boundary, or 1.
	FromLine int
	// Text is every message's text from FromLine on: user and assistant
	// text, thinking, tool calls' inputs and tool results, one block a
	// paragraph.
	Text string
	// Summary is the text of the last isCompactSummary line, "" if none.
	Summary string
	// Boundaries counts the compact_boundary lines of the whole file.
	Boundaries int
}

// LoadedView returns what the client loads of a session's raw lines.
// Sidechain lines (inline subagents) are not part of the main conversation
// and are left out.
func LoadedView(lines [][]byte) *Loaded {
	v := &Loaded{FromLine: 1}
	for i, raw := range lines {
		if bytes.Contains(raw, []byte("compact_boundary")) {
			if e, _ := parseLine(raw); e != nil && e.Type == "system" && e.Subtype == "compact_boundary" {
				v.FromLine = i + 1
				v.Boundaries++
			}
		}
	}
	var b strings.Builder
	for _, raw := range lines[v.FromLine-1:] {
		e, _ := parseLine(raw)
		if e == nil || e.Message == nil || e.IsSidechain || (e.Type != "user" && e.Type != "assistant") {
			continue
		}
		start := b.Len()
		writeMessageText(&b, e.Message)
		if e.IsCompactSummary {
			v.Summary = b.String()[start:]
		}
	}
	v.Text = b.String()
	return v
}

func writeMessageText(b *strings.Builder, m *message) {
	if s, ok := m.text(); ok {
		b.WriteString(s)
		b.WriteString("\n\n")
		return
	}
	for _, c := range m.blocks() {
		switch c.Type {
		case "text":
			b.WriteString(c.Text)
		case "thinking":
			b.WriteString(c.Thinking)
		case "tool_use", "server_tool_use":
			b.WriteString(c.Name)
			cairn.WriteInputValues(b, c.Input)
		case "tool_result":
			b.WriteString(resultText(c.Content))
		default:
			continue
		}
		b.WriteString("\n\n")
	}
}
