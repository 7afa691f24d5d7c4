package surgery

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
)

// Summary returns the text a resumed agent reads first: what operation cut
// this session from which sessions, the index table of the compressed
// rounds, and where every round in full came from. It is what the Claude
// Code exporter puts in its summary line.
func Summary(m *cairn.Materialization) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This session was prepared by cairn (%s", m.Operation)
	if m.Label != "" {
		fmt.Fprintf(&b, " · %s", m.Label)
	}
	fmt.Fprintf(&b, ") from %s. Its history is stored in full; this is a chosen view of it.\n", sourceList(m))
	b.WriteString(namingClaim(m))
	if m.Budget > 0 {
		fmt.Fprintf(&b, "It was fitted in a budget of %d tokens: older rounds are condensed first.\n", m.Budget)
	}

	multi := len(m.Sources) > 1
	if multi {
		b.WriteString("\nSources (the rounds of both are interleaved by time; each keeps its own voice):\n")
		for i, s := range m.Sources {
			fmt.Fprintf(&b, "- %s = session %s%s, %d rounds, %s – %s\n", label(i), s.ID, project(s), s.Rounds,
				s.StartedAt.UTC().Format(export.IndexTimeFormat), s.EndedAt.UTC().Format(export.IndexTimeFormat))
		}
	}
	ledgerSummary(&b, m)
	collapsedSummary(&b, m)
	if idx := m.IndexRounds(); len(idx) > 0 || m.Dropped > 0 {
		id := m.Sources[0].ID
		if len(idx) > 0 {
			id = idx[0].SessionID
		}
		fmt.Fprintf(&b, "\nRounds compressed to one line each (session %s; the first column is the round number):\n", id)
		if len(m.RoundRuns) > 0 {
			fmt.Fprintf(&b, "The %d oldest rounds, too many for a row each in the budget, in runs; `cairn rounds %s A-B` lists a run's rows:\n", RunRounds(m), id)
			for _, e := range m.RoundRuns {
				b.WriteString("- " + e.Line + "\n")
			}
		}
		if len(idx) > 0 {
			b.WriteString("\n")
			_ = export.IndexTable(&b, idx)
		}
	}
	for _, p := range m.FullPieces() {
		if c := p.Compaction; c != nil {
			fmt.Fprintf(&b, "\nClaude Code compacted session %s itself at line %d (%s, %s, %d tokens before): what it had compacted stays out.",
				short(c.SessionID), c.Line, orUnknown(c.Trigger), c.At.UTC().Format(export.IndexTimeFormat), c.PreTokens)
			if c.StepsBefore > 0 {
				fmt.Fprintf(&b, " Steps %d.1 to %d.%d of round %d, from before it, are stored in full: `cairn inject SESSION %d.STEP` reads one.",
					c.RoundSeq, c.RoundSeq, c.StepsBefore, c.RoundSeq, c.RoundSeq)
			}
			fmt.Fprintf(&b, " Its own summary, written by the client, not by cairn:\n\n%s\n", strings.TrimSpace(c.Summary))
		}
	}
	indexSummary(&b, m)
	if full := m.FullPieces(); len(full) > 0 {
		b.WriteString("\nRounds in full follow, in this order:\n")
		for i, p := range full {
			src := ""
			if multi {
				src = label(sourceIndex(m, p.Round.SessionID)) + " "
			}
			tag := ""
			if p.Round.EngagementID != "" {
				tag = " [" + p.Round.EngagementID + "]"
			}
			fmt.Fprintf(&b, "%d. %sround %03d of %s%s · %s · %q\n", i+1, src, p.Round.Seq, short(p.Round.SessionID), tag,
				p.Round.StartedAt.UTC().Format(export.IndexTimeFormat), p.Round.UserPreview)
		}
	}
	return b.String()
}

// Naming is how an output names what it does not show in full, read off
// the output itself: the header's claim is made of it.
type Naming struct {
	Steps     int // steps named by an entry of their own (7.12)
	StepRuns  int // runs of steps (7.3-7.9)
	Rows      int // rounds shown as a row alone, which stands for their steps
	RoundRuns int // rounds named only in a run of rounds (rounds 3-17)
	Frames    int // rounds a finished frame stands for, named by their numbers
}

// Names reads how m names what it leaves out: its pieces' entries, the rows
// of rounds whose steps have no entry, and its runs of rounds.
func Names(m *cairn.Materialization) Naming {
	var n Naming
	for _, p := range m.Pieces {
		steps := 0
		for _, e := range p.Index {
			switch {
			case e.From == 0:
			case e.From == e.To:
				n.Steps++
				steps++
			default:
				n.StepRuns++
				steps++
			}
		}
		if !p.Full && steps == 0 {
			n.Rows++
		}
	}
	n.RoundRuns = RunRounds(m)
	for _, c := range m.Collapsed {
		n.Frames += len(c.Rounds)
	}
	return n
}

// RunRounds counts the rounds m names only in runs of rounds.
func RunRounds(m *cairn.Materialization) int {
	n := 0
	for _, e := range m.RoundRuns {
		n += e.Through - e.Round + 1
	}
	return n
}

// namingClaim is the header's sentence on what is not shown in full: the
// forms of name the output uses and no other, and "nothing is lost" only
// when the output names every round of its sources ([Whole]).
func namingClaim(m *cairn.Materialization) string {
	n := Names(m)
	var forms []string
	if n.Steps > 0 {
		forms = append(forms, "a step by its ROUND.STEP (7.12)")
	}
	if n.StepRuns > 0 {
		forms = append(forms, "a run of steps by its span (7.3-7.9)")
	}
	if n.Rows > 0 {
		forms = append(forms, "a round by its row (7), which stands for its steps")
	}
	if n.RoundRuns > 0 {
		forms = append(forms, "the oldest rounds in runs (rounds 3-17, which `cairn rounds SESSION 3-17` lists)")
	}
	if n.Frames > 0 {
		forms = append(forms, "a finished frame's rounds by their numbers")
	}
	inject := "`cairn inject SESSION REF` prints it in full, REF being a round (7), a step (7.12) or a run of steps (7.3-7.9).\n"
	switch {
	case !Whole(m):
		s := "This is a chosen part of it: rounds not shown here are not named (`cairn rounds SESSION` lists every round)"
		if len(forms) > 0 {
			s += "; below, " + strings.Join(forms, "; ")
		}
		return s + "; " + inject
	case len(forms) == 0:
		return "Every round of it follows below; none is left to the index.\n"
	}
	return "Nothing is lost: every round and step not shown in full is named below, " + strings.Join(forms, "; ") + ", and " + inject
}

// Whole reports whether m names every round of its sources, in full, as
// an entry, in a run of rounds or under a finished frame: what an operation on the whole session
// writes, not a chosen part (inject, extract, a split's child).
func Whole(m *cairn.Materialization) bool {
	if m.Operation == cairn.OpInject {
		return false
	}
	named := map[string]map[int]bool{}
	add := func(session string, seq int) {
		if named[session] == nil {
			named[session] = map[int]bool{}
		}
		if seq > 0 {
			named[session][seq] = true
		}
	}
	for _, p := range m.Pieces {
		add(p.Round.SessionID, p.Round.Seq)
	}
	id := m.Sources[0].ID
	if len(m.Pieces) > 0 {
		id = m.Pieces[0].Round.SessionID
	}
	for _, e := range m.RoundRuns {
		for seq := e.Round; seq <= e.Through; seq++ {
			add(id, seq)
		}
	}
	for _, c := range m.Collapsed {
		for _, seq := range c.Rounds {
			add(c.SessionID, seq)
		}
	}
	for _, s := range m.Sources {
		if len(named[s.ID]) < s.Rounds {
			return false
		}
	}
	return true
}

func sourceList(m *cairn.Materialization) string {
	var parts []string
	for i, s := range m.Sources {
		p := "session " + s.ID
		if len(m.Sources) > 1 {
			p = label(i) + " (" + p + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " and ")
}

func project(s *cairn.Session) string {
	if s.Project == "" {
		return ""
	}
	return " in " + s.Project
}

func label(i int) string { return string(rune('A' + i)) }

func sourceIndex(m *cairn.Materialization, id string) int {
	for i, s := range m.Sources {
		if s.ID == id {
			return i
		}
	}
	return 0
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func orUnknown(s string) string {
	if s == "" {
		return "trigger unknown"
	}
	return s
}

// ledgerSummary writes the ledger under its one-line introduction.
func ledgerSummary(b *strings.Builder, m *cairn.Materialization) {
	if len(m.Ledger) == 0 {
		return
	}
	b.WriteString("\nWhat to carry on with, kept verbatim from the whole session (each line starts with the step it comes from):\n")
	export.Ledger(b, m.Ledger)
}

// indexSummary writes the layered index below the rows: for each round,
// its steps not in full, one line a step or a run of steps.
func indexSummary(b *strings.Builder, m *cairn.Materialization) {
	head := false
	for _, p := range m.Pieces {
		var es []cairn.IndexEntry
		for _, e := range p.Index {
			if e.From > 0 {
				es = append(es, e)
			}
		}
		if len(es) == 0 {
			continue
		}
		if !head {
			b.WriteString("\nSteps not in full, by round: a step (ROUND.STEP, its tools with their key argument → the first characters of the result | its text) or a run of steps (ROUND.A-ROUND.B, its size and what it touched); `cairn inject SESSION REF` prints either.\n")
			head = true
		}
		where := "shown as a row above"
		if p.Full {
			where = "its prompt and its last steps in full below"
		}
		fmt.Fprintf(b, "Round %d of %s (%s):\n", p.Round.Seq, short(p.Round.SessionID), where)
		for _, e := range es {
			b.WriteString("- " + e.Line + "\n")
		}
	}
}
