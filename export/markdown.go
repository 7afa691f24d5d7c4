package export

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// Markdown writes a session's rounds, with their blocks, for people.
func Markdown(w io.Writer, s *cairn.Session, rounds []*cairn.Round) error {
	ew := &errWriter{w: w}
	title := s.Title
	if title == "" {
		title = s.ID
	}
	ew.printf("# %s\n\n", title)
	ew.printf("- session: `%s`\n", s.ID)
	if s.Project != "" {
		ew.printf("- project: `%s`\n", s.Project)
	}
	if !s.StartedAt.IsZero() {
		ew.printf("- time: %s – %s\n", s.StartedAt.Format(IndexTimeFormat), s.EndedAt.Format(IndexTimeFormat))
	}
	ew.printf("- rounds: %d\n", s.Rounds)
	if s.Parent != "" {
		ew.printf("- parent: `%s` round %d\n", s.Parent, s.ParentRound)
	}
	for _, r := range rounds {
		ew.printf("\n")
		RoundMarkdown(ew, r)
	}
	return ew.err
}

// RoundMarkdown writes one round in full.
func RoundMarkdown(w io.Writer, r *cairn.Round) error { return roundMarkdown(w, r, "") }

// roundMarkdown writes one round in full; a voice ("A", "B") names the
// source it came from in its heading and on every user and assistant
// message, so a merge reads as two conversations interleaved.
func roundMarkdown(w io.Writer, r *cairn.Round, voice string) error {
	ew, ok := w.(*errWriter)
	if !ok {
		ew = &errWriter{w: w}
	}
	ts := ""
	if !r.StartedAt.IsZero() {
		ts = " · " + r.StartedAt.UTC().Format(IndexTimeFormat)
	}
	tag := ""
	if r.EngagementID != "" {
		tag = " · engagement " + r.EngagementID
	}
	of := ""
	if voice != "" {
		of = " of source " + voice
	}
	ew.printf("## Round %03d%s%s%s\n", r.Seq, of, ts, tag)
	for _, b := range r.Blocks {
		if strings.TrimSpace(b.Content) == "" && b.Kind != cairn.ToolUse && b.Kind != cairn.ToolResult {
			continue
		}
		ew.printf("\n")
		blockMarkdown(ew, b, voice)
	}
	return ew.err
}

func blockMarkdown(ew *errWriter, b *cairn.Block, voice string) {
	side := ""
	if voice != "" {
		side = " " + voice
	}
	if b.Sidechain {
		side += " (subagent)"
	}
	if b.Detail != "" {
		// Condensed by a materialization: one line stands for the block.
		ew.printf("*%s%s:* %s\n", b.Kind, side, b.Content)
		return
	}
	switch b.Kind {
	case cairn.UserText:
		ew.printf("**User%s:**\n\n%s\n", side, b.Content)
	case cairn.AssistantText:
		ew.printf("**Assistant%s:**\n\n%s\n", side, b.Content)
	case cairn.Thinking:
		ew.printf("<details><summary>thinking%s · %d chars</summary>\n\n%s\n\n</details>\n", side, utf8.RuneCountInString(b.Content), b.Content)
	case cairn.ToolUse:
		ew.printf("**Tool call%s:** `%s`\n\n%s\n", side, b.ToolName, ToolInput(b.Content))
	case cairn.ToolResult:
		label := "Tool result"
		if b.IsError {
			label = "Tool error"
		}
		ew.printf("**%s%s:** `%s`\n\n%s\n", label, side, b.ToolName, fence(b.Content, ""))
	case cairn.MetaText, cairn.CompactionBlock:
		ew.printf("*%s%s:*\n\n%s\n", b.Role, side, fence(b.Content, ""))
	}
}

// fence wraps s in a code fence longer than any backtick run inside it.
func fence(s, lang string) string {
	ticks := "```"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + ticks
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }
