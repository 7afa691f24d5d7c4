// Package export renders stored sessions for people and programs: the
// transcript byte for byte, Markdown, and the round index table that
// surgery puts in place of compressed rounds.
package export

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn"
)

// IndexTimeFormat is the minute-precision UTC time of an index line.
const IndexTimeFormat = "2006-01-02T15:04Z"

// IndexLine renders a round as one line of the index table:
//
//	| 047 | 2026-03-19T10:23Z | user→assistant | [tool_use: Read·Edit] → "first 80 chars…" |
//
// The last cell is the round's key tool calls and the first 80 characters
// of its primary text: the agent's answer, or the user's words when the
// agent wrote none.
func IndexLine(r *cairn.Round) string {
	ts := ""
	if !r.StartedAt.IsZero() {
		ts = r.StartedAt.UTC().Format(IndexTimeFormat)
	}
	return fmt.Sprintf("| %03d | %s | %s | %s |", r.Seq, ts, r.Roles(), escapeCell(Primary(r)))
}

// Primary returns the index cell of a round: tool names, then the text.
func Primary(r *cairn.Round) string {
	text := r.AgentPreview
	if text == "" {
		text = r.UserPreview
	}
	if r.Seq == 0 && text == "" && len(r.Tools) == 0 {
		return "(before the first prompt)"
	}
	var parts []string
	if len(r.Tools) > 0 {
		parts = append(parts, "[tool_use: "+strings.Join(r.Tools, "·")+"]")
	}
	if text != "" {
		parts = append(parts, fmt.Sprintf("%q", text))
	}
	return strings.Join(parts, " → ")
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// IndexTable writes the index table of rounds, with its header.
func IndexTable(w io.Writer, rounds []*cairn.Round) error {
	if _, err := fmt.Fprintln(w, "| # | time | roles | content |\n|---|---|---|---|"); err != nil {
		return err
	}
	for _, r := range rounds {
		if _, err := fmt.Fprintln(w, IndexLine(r)); err != nil {
			return err
		}
	}
	return nil
}

// JSONL writes lines exactly as they were read: for an imported session,
// the original file byte for byte.
func JSONL(w io.Writer, lines []*cairn.Line) error {
	for _, l := range lines {
		if _, err := w.Write(l.Raw); err != nil {
			return err
		}
	}
	return nil
}
