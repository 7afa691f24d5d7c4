package cairn

import (
	"fmt"
	"strings"
	"time"
)

// Surgical operations: each turns stored rounds into a [Materialization].
const (
	OpCompressBefore     = "compress-before"
	OpCompressEngagement = "compress-engagement"
	OpExtractEngagement  = "extract-engagement"
	OpMerge              = "merge"
	OpSplit              = "split"
	OpInject             = "inject"
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

	// Frontmatter of the whole: the earliest start, the latest end, the
	// rounds and the engagements of the sources (a merge unions them).
	StartedAt   time.Time `json:"started_at"`
	EndedAt     time.Time `json:"ended_at"`
	Rounds      int       `json:"rounds"`
	Engagements []string  `json:"engagements,omitempty"`
}

// A Piece is one round of a materialization: in full (with its blocks at
// the materialization's fidelity, and its raw lines for a transcript
// writer) or as one index line.
type Piece struct {
	Round *Round  `json:"round"`
	Full  bool    `json:"full"`
	Lines []*Line `json:"-"`
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

// ThinkingReference is what stands for a thinking block of round seq:
//
//	[thinking · 412 chars — inject(7, thinking)]
func ThinkingReference(seq int, content string) string {
	return fmt.Sprintf("[thinking · %d chars — inject(%d, thinking)]", len([]rune(content)), seq)
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
	return fmt.Sprintf("[%s · %d chars · %d lines — first: %s]", kind, len([]rune(content)), strings.Count(content, "\n")+1, clip(first, 80))
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
