package export

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn"
)

// MaterializationMarkdown writes a surgical materialization for people: its
// operation and lineage, then the rounds in reading order, each run of
// compressed rounds as an index table and each full round at the
// materialization's fidelity. With several sources every round says which
// session it came from.
func MaterializationMarkdown(w io.Writer, m *cairn.Materialization) error {
	ew := &errWriter{w: w}
	title := m.Operation
	if m.Label != "" {
		title += " · " + m.Label
	}
	ew.printf("# %s\n\n", title)
	ew.printf("- operation: `%s %s`\n", m.Operation, strings.Join(m.Args, " "))
	for i, s := range m.Sources {
		ew.printf("- source %c: `%s`", 'A'+i, s.ID)
		if s.Project != "" {
			ew.printf(" · `%s`", s.Project)
		}
		ew.printf(" · %d rounds\n", s.Rounds)
	}
	if !m.StartedAt.IsZero() {
		ew.printf("- time: %s – %s\n", m.StartedAt.UTC().Format(IndexTimeFormat), m.EndedAt.UTC().Format(IndexTimeFormat))
	}
	if len(m.Engagements) > 0 {
		ew.printf("- engagements: %s\n", strings.Join(m.Engagements, ", "))
	}
	f := m.Fidelity
	ew.printf("- fidelity: thinking %s · tool calls %s · tool results %s\n", f.Thinking, f.ToolUse, f.ToolResult)
	full, index := len(m.FullPieces()), len(m.IndexRounds())
	ew.printf("- rounds: %d in full, %d as index lines\n", full, index)
	if m.Dropped > 0 {
		ew.printf("- rounds named only in runs of rounds (too many for a row each in the budget): %d\n", m.Dropped)
	}
	if m.Tokens > 0 {
		ew.printf("- size: ~%d tokens the client sends", m.Tokens)
		if m.Budget > 0 {
			ew.printf(" (budget %d)", m.Budget)
		}
		ew.printf("\n")
	}
	collapsedMarkdown(ew, m)
	if len(m.Ledger) > 0 {
		var b strings.Builder
		Ledger(&b, m.Ledger)
		ew.printf("\n## What to carry on with\n\nKept verbatim from the whole session; each line starts with the step it comes from (`cairn inject SESSION REF` prints it).\n\n%s", b.String())
	}

	for i := 0; i < len(m.Pieces); {
		p := m.Pieces[i]
		if !p.Full {
			j := i
			var run []*cairn.Round
			for ; j < len(m.Pieces) && !m.Pieces[j].Full; j++ {
				run = append(run, m.Pieces[j].Round)
			}
			ew.printf("\n## Index · rounds %03d–%03d%s\n\n", run[0].Seq, run[len(run)-1].Seq, from(m, run[0].SessionID))
			if ew.err == nil {
				ew.err = IndexTable(ew, run)
			}
			for _, p := range m.Pieces[i:j] {
				stepEntries(ew, p, "steps")
			}
			i = j
			continue
		}
		ew.printf("\n")
		if len(m.Sources) > 1 {
			ew.printf("<!-- from %s -->\n", p.Round.SessionID)
		}
		if c := p.Compaction; c != nil {
			ew.printf("*Claude Code compacted this session at line %d%s; its own summary stands for what came before:*\n\n> %s\n\n",
				c.Line, compactionFigures(c), strings.ReplaceAll(strings.TrimSpace(c.Summary), "\n", "\n> "))
		}
		stepEntries(ew, p, "earlier steps")
		roundMarkdown(ew, p.Round, voice(m, p.Round.SessionID))
		if len(m.Sources) > 1 {
			ew.printf("\n*— round %d%s*\n", p.Round.Seq, from(m, p.Round.SessionID))
		}
		i++
	}
	return ew.err
}

// compactionFigures is what is known of a compaction, " (manual, 1234
// tokens before)", or "" when nothing is (a 1.0.x compaction has no
// boundary line to say it).
func compactionFigures(c *cairn.Compaction) string {
	var fig []string
	if c.Trigger != "" {
		fig = append(fig, c.Trigger)
	}
	if c.PreTokens > 0 {
		fig = append(fig, fmt.Sprintf("%d tokens before", c.PreTokens))
	}
	if len(fig) == 0 {
		return ""
	}
	return " (" + strings.Join(fig, ", ") + ")"
}

func from(m *cairn.Materialization, id string) string {
	if v := voice(m, id); v != "" {
		return " of source " + v
	}
	return ""
}

// voice is the letter of the source id came from ("A", "B"), or "" when
// the materialization has one source.
func voice(m *cairn.Materialization, id string) string {
	if len(m.Sources) < 2 {
		return ""
	}
	for i, s := range m.Sources {
		if s.ID == id {
			return string(rune('A' + i))
		}
	}
	return ""
}

// MaterializationJSON writes a materialization for programs: one JSON
// document with its sources, fidelity and pieces (rounds with their
// blocks).
func MaterializationJSON(w io.Writer, m *cairn.Materialization) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// collapsedMarkdown writes the finished frames that stand for their
// rounds (compress-frames).
func collapsedMarkdown(ew *errWriter, m *cairn.Materialization) {
	for _, c := range m.Collapsed {
		f := c.Frame
		ew.printf("\n## Frame %s · %s (%s) · in place of %s (~%d tokens)\n\n", f.ID, f.Title, f.Status, c.Where(), c.Tokens)
		ew.printf("- criteria: %s\n", f.CriteriaCompacted())
		if f.Results != "" {
			ew.printf("- results: %s\n", f.Results)
		}
		if f.ResultsCompacted != "" && f.ResultsCompacted != f.Results {
			ew.printf("- compaction: %s\n", f.ResultsCompacted)
		}
	}
}

// stepEntries lists the index entries that name a round's steps left out
// (a step or a run of steps; a row's own entry is its table line).
func stepEntries(ew *errWriter, p *cairn.Piece, what string) {
	first := true
	for _, e := range p.Index {
		if e.From == 0 {
			continue
		}
		if first {
			ew.printf("\n*Round %d: %s not in full (`cairn inject SESSION REF` prints one):*\n\n", p.Round.Seq, what)
			first = false
		}
		ew.printf("- %s\n", e.Line)
	}
	if !first {
		ew.printf("\n")
	}
}
