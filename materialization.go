package cairn

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Surgical operations: each turns stored rounds into a [Materialization].
const (
	OpCompressBefore     = "compress-before"
	OpCompressEngagement = "compress-engagement"
	OpExtractEngagement  = "extract-engagement"
	OpMerge              = "merge"
	OpSplit              = "split"
	OpInject             = "inject"
	// OpRevive is compress-before at the recent rounds (or another cut)
	// for a successor agent, always within a budget.
	OpRevive         = "revive"
	OpCompressFrames = "compress-frames"
)

// A Materialization is a rendering of stored history at chosen fidelity:
// which rounds are active in full, which only as index lines. Surgery
// produces it from the store without changing the store; writers turn it
// into a Claude Code session, Markdown or JSON.
type Materialization struct {
	Operation string   `json:"operation"`
	Args      []string `json:"args,omitempty"`
	// Label names one output of an operation with several (split: the
	// child's engagement).
	Label string `json:"label,omitempty"`

	// Sources are the sessions the rounds come from, in the order the
	// operation was given them: a merge has two, every other operation one.
	Sources  []*Session `json:"sources"`
	Fidelity Fidelity   `json:"fidelity"`

	// Pieces are the rounds in reading order.
	Pieces []*Piece `json:"pieces"`
	// Collapsed are finished frames whose rounds the materialization
	// leaves out, each standing as one entry (compress-frames).
	Collapsed []*CollapsedFrame `json:"collapsed,omitempty"`

	// Frontmatter of the whole: the earliest start, the latest end, the
	// rounds and the engagements of the sources (a merge unions them).
	StartedAt   time.Time `json:"started_at"`
	EndedAt     time.Time `json:"ended_at"`
	Rounds      int       `json:"rounds"`
	Engagements []string  `json:"engagements,omitempty"`

	// Size: the estimated tokens the client sends for it, the budget it was
	// fitted in (0: none), and the rounds dropped from the index table to
	// fit (oldest first).
	Tokens  int64 `json:"tokens,omitempty"`
	Budget  int64 `json:"budget,omitempty"`
	Dropped int   `json:"dropped,omitempty"`
	// Overhead is the estimated tokens the client sends besides the
	// conversation (its system prompt and tools), part of Tokens.
	Overhead int64 `json:"overhead,omitempty"`

	// Compactions are the client's own compactions in the sources, in order.
	Compactions []*Compaction `json:"compactions,omitempty"`

	// Ledger is what an agent needs to continue, kept verbatim whatever
	// the budget does to the rounds: the user's prompts, the latest todo
	// list, errors not followed by a fix, the files changed, the commands
	// run with their outcome, what the agent stated. Set by the operations
	// that continue a session.
	Ledger []LedgerItem `json:"ledger,omitempty"`
	// RoundRuns name, oldest first, the rounds a budget could not give a
	// row each (Dropped counts them): each a run of rounds (Round to
	// Through) that `cairn rounds SESSION A-B` lists, the top layer of
	// the index.
	RoundRuns []IndexEntry `json:"round_runs,omitempty"`
}

// Kinds of [LedgerItem], in the order a summary shows them.
const (
	LedgerPrompt   = "prompt"
	LedgerTodo     = "todo"
	LedgerError    = "error"
	LedgerArtifact = "artifact"
	LedgerCommand  = "command"
	LedgerStated   = "stated"
)

// A LedgerItem is one entry of a [Materialization]'s ledger: its text,
// verbatim or clipped, and the step it comes from (Step 0: the round's
// prompt), which `cairn inject` prints in full.
type LedgerItem struct {
	Kind  string `json:"kind"`
	Round int    `json:"round"`
	Step  int    `json:"step,omitempty"`
	Text  string `json:"text"`
}

// Ref is where the item comes from as inject takes it: "7.12", or "7" for
// a round's prompt.
func (i LedgerItem) Ref() string {
	if i.Step == 0 {
		return fmt.Sprint(i.Round)
	}
	return fmt.Sprintf("%d.%d", i.Round, i.Step)
}

// A Piece is one round of a materialization: in full (with its blocks at
// the materialization's fidelity, and its raw lines for a transcript
// writer) or as one index line.
//
// A round in full may keep only part of itself: its prompt and its last
// steps (Keep, line ranges), the steps before them as index lines
// (StepIndex), and, for a round that spans the client's compaction, the
// client's summary of what lies before the boundary (Compaction).
type Piece struct {
	Round *Round  `json:"round"`
	Full  bool    `json:"full"`
	Lines []*Line `json:"-"`

	// Fidelity, when set, overrides the materialization's for this round:
	// surgery condenses old rounds to fit a budget.
	Fidelity *Fidelity `json:"fidelity,omitempty"`
	// Keep, when set, are the line ranges of the round kept in full; the
	// other lines are left out. Empty: the whole round.
	Keep []LineRange `json:"keep,omitempty"`
	// Index are the entries that name the round's steps left out, in
	// order: one line a step where the budget allows, a run of steps where
	// it does not (see [IndexEntry]). A round shown as an index line
	// carries them too, so no step is ever out of reach.
	Index []IndexEntry `json:"index,omitempty"`
	// Compaction is the client's compaction the round spans, whose summary
	// stands for the steps before its boundary.
	Compaction *Compaction `json:"compaction,omitempty"`
	// Tokens is the estimated size of what the piece puts in the request.
	Tokens int64 `json:"tokens,omitempty"`
}

// An IndexEntry names steps an output leaves out, so that one `cairn inject
// SESSION REF` prints them: one step (From == To, its [Step.IndexLine]), a
// run of steps of one round (From < To, a line that says what they touched),
// or a whole round (From == 0). Tokens is what that inject prints,
// estimated: an entry helps only when its expansion fits what is left of
// the window, so runs are cut to a bound (see package surgery).
type IndexEntry struct {
	Round int `json:"round"`
	// Through, when set, is the last round of a run of rounds (From 0):
	// the entry names rounds Round to Through, which `cairn rounds` lists.
	Through int    `json:"through,omitempty"`
	From    int    `json:"from"`
	To      int    `json:"to"`
	Line    string `json:"line"`
	Tokens  int64  `json:"tokens"`
}

// Ref is the entry as inject takes it: "7.12", "7.3-7.9" or "7".
func (e IndexEntry) Ref() string {
	switch {
	case e.From == 0:
		return fmt.Sprint(e.Round)
	case e.From == e.To:
		return fmt.Sprintf("%d.%d", e.Round, e.From)
	}
	return fmt.Sprintf("%d.%d-%d.%d", e.Round, e.From, e.Round, e.To)
}

// Names reports whether the entry names step seq of round.
func (e IndexEntry) Names(round, seq int) bool {
	return e.Round == round && (e.From == 0 || seq >= e.From && seq <= e.To)
}

// A LineRange is the lines From to To of a session, inclusive.
type LineRange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// Kept reports whether line no of the piece's round is kept.
func (p *Piece) Kept(no int) bool {
	if len(p.Keep) == 0 {
		return true
	}
	for _, r := range p.Keep {
		if no >= r.From && no <= r.To {
			return true
		}
	}
	return false
}

// FidelityOr returns the piece's fidelity, or f when it has none.
func (p *Piece) FidelityOr(f Fidelity) Fidelity {
	if p.Fidelity != nil {
		return *p.Fidelity
	}
	return f
}

// A CollapsedFrame is a finished frame that stands, in a materialization,
// for the rounds and steps worked under it: its title, results and
// compaction, and the rounds and steps, which stay readable with inject.
type CollapsedFrame struct {
	Frame     *Frame `json:"frame"`
	SessionID string `json:"session_id"`
	Rounds    []int  `json:"rounds"`
	// Steps are the runs of steps worked under it in rounds that were
	// not (a frame pushed and popped inside one prompt's work), as inject
	// takes them: "7.3-7.9", "7.4".
	Steps  []string `json:"steps,omitempty"`
	Tokens int64    `json:"tokens"` // what the rounds and steps held, estimated (four characters a token)
}

// Where names what the frame stands for: "rounds 3, 4", "steps 7.3-7.9",
// or both.
func (c *CollapsedFrame) Where() string {
	var parts []string
	if len(c.Rounds) > 0 {
		seqs := make([]string, len(c.Rounds))
		for i, n := range c.Rounds {
			seqs[i] = fmt.Sprint(n)
		}
		parts = append(parts, "rounds "+strings.Join(seqs, ", "))
	}
	if len(c.Steps) > 0 {
		parts = append(parts, "steps "+strings.Join(c.Steps, ", "))
	}
	return strings.Join(parts, " and ")
}

// Recipe identifies what m writes, as lineage records it
// ([SessionStore.SetLineage]): the operation with its arguments and label,
// the fidelity and the budget, each source with the lines it had, and a
// digest of the layout (each round, in full or not, the lines and fidelity
// it keeps, the rounds left out), which settles what the arguments do not
// say (what was kept from before the client's compaction). Two exports with
// the same recipe are the same session: the viewer refuses a second.
//
//	revive compress-before 5f0c2a1e-… 3 · fidelity full · budget 100000 · 5f0c2a1e-…@42 · layout 9c1d…
func (m *Materialization) Recipe() string {
	var b strings.Builder
	b.WriteString(m.Operation)
	for _, a := range m.Args {
		b.WriteString(" " + a)
	}
	if m.Label != "" {
		b.WriteString(" · " + m.Label)
	}
	f := m.Fidelity
	fmt.Fprintf(&b, " · fidelity thinking=%s,tool_use=%s,tool_result=%s · budget %d", f.Thinking, f.ToolUse, f.ToolResult, m.Budget)
	for _, s := range m.Sources {
		fmt.Fprintf(&b, " · %s@%d", s.ID, s.Lines)
	}
	h := sha256.New()
	for _, p := range m.Pieces {
		fmt.Fprintf(h, "%s %d %d %v %v %+v %d %v\n", p.Round.SessionID, p.Round.Seq, p.Round.LastLine, p.Full, p.Keep, p.FidelityOr(m.Fidelity), len(p.Index), p.Compaction != nil)
	}
	for _, c := range m.Collapsed {
		fmt.Fprintf(h, "frame %s %s %v %v\n", c.Frame.ID, c.SessionID, c.Rounds, c.Steps)
	}
	fmt.Fprintf(h, "dropped %d compactions %d\n", m.Dropped, len(m.Compactions))
	fmt.Fprintf(&b, " · layout %x", h.Sum(nil)[:8])
	return b.String()
}

// IndexRounds returns the rounds shown as index lines, in order.
func (m *Materialization) IndexRounds() []*Round {
	var out []*Round
	for _, p := range m.Pieces {
		if !p.Full {
			out = append(out, p.Round)
		}
	}
	return out
}

// FullPieces returns the pieces shown in full, in order.
func (m *Materialization) FullPieces() []*Piece {
	var out []*Piece
	for _, p := range m.Pieces {
		if p.Full {
			out = append(out, p)
		}
	}
	return out
}

// Source returns the source session with the given ID, nil if none.
func (m *Materialization) Source(id string) *Session {
	for _, s := range m.Sources {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// Detail is how much of one kind of block a materialization keeps.
type Detail string

// Details. Reference applies to thinking, Summary to tool calls and
// results; each accepts the other's name.
const (
	DetailFull      Detail = "full"
	DetailReference Detail = "reference"
	DetailSummary   Detail = "summary"
	DetailOmit      Detail = "omit"
)

// A Fidelity says how a round in full renders its process blocks. User and
// assistant text are always kept: they are the question and the answer.
type Fidelity struct {
	Thinking   Detail `json:"thinking"`
	ToolUse    Detail `json:"tool_use"`
	ToolResult Detail `json:"tool_result"`
}

// FullFidelity keeps every block as stored.
var FullFidelity = Fidelity{Thinking: DetailFull, ToolUse: DetailFull, ToolResult: DetailFull}

// ParseFidelity reads "thinking=reference,tool_use=summary,tool_result=omit"
// (any subset; the rest stay full) or one of the words full, partial (thinking
// referenced, tools summarized) and text (only user and assistant text).
// Returns EINVALID for a contradiction: results kept while their calls are
// left out (tool_use=omit needs tool_result=omit), since a result without
// its call is refused by the API.
func ParseFidelity(s string) (Fidelity, error) {
	f := FullFidelity
	switch strings.TrimSpace(s) {
	case "", "full":
		return f, nil
	case "partial":
		return Fidelity{Thinking: DetailReference, ToolUse: DetailSummary, ToolResult: DetailSummary}, nil
	case "text":
		return Fidelity{Thinking: DetailOmit, ToolUse: DetailOmit, ToolResult: DetailOmit}, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		d := Detail(strings.TrimSpace(v))
		if !ok || (d != DetailFull && d != DetailReference && d != DetailSummary && d != DetailOmit) {
			return f, Errorf(EINVALID, "Fidelity %q: want KIND=full|summary|reference|omit, KIND one of thinking, tool_use, tool_result.", kv)
		}
		switch strings.TrimSpace(k) {
		case "thinking":
			f.Thinking = d
		case "tool_use", "tool-use", "tools":
			f.ToolUse = d
		case "tool_result", "tool-result", "results":
			f.ToolResult = d
		default:
			return f, Errorf(EINVALID, "Fidelity %q: unknown kind %q.", kv, k)
		}
	}
	if f.ToolUse == DetailOmit && f.ToolResult != DetailOmit {
		return f, Errorf(EINVALID, "Fidelity %q: tool_use=omit with tool_result=%s keeps results without their calls; say tool_result=omit, or tool_use=summary.", s, f.ToolResult)
	}
	return f, nil
}

// Condensed reports whether d keeps less than the full block.
func (d Detail) Condensed() bool { return d == DetailReference || d == DetailSummary }

// ThinkingReference is what stands for a thinking block of round seq of
// session: its size and the command that prints the round with it (the
// MCP tool inject takes the same session and round):
//
//	[thinking · 412 chars — cairn inject 5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01 7]
func ThinkingReference(session string, seq int, content string) string {
	return fmt.Sprintf("[thinking · %d chars — cairn inject %s %d]", utf8.RuneCountInString(content), session, seq)
}

// ToolUseSummary is what stands for a tool call: its name and a short
// rendering of its input.
func ToolUseSummary(name, input string) string {
	return fmt.Sprintf("[tool_use: %s %s]", name, clip(strings.Join(strings.Fields(input), " "), 80))
}

// ToolResultSummary is what stands for a tool result: its size and first
// line.
func ToolResultSummary(content string, isError bool) string {
	first, _, _ := strings.Cut(strings.TrimSpace(content), "\n")
	kind := "tool_result"
	if isError {
		kind = "tool_error"
	}
	return fmt.Sprintf("[%s · %d chars · %d lines — first: %s]", kind, utf8.RuneCountInString(content), strings.Count(content, "\n")+1, clip(first, 80))
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
