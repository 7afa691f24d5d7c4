package cairn

import "time"

// A Compaction is where the client compacted a session (a compact_boundary
// line): what it sends from then on starts with its own summary of what came
// before, so the lines before the boundary are no longer in context. It is a
// materialization the client made; surgery respects it.
type Compaction struct {
	SessionID string    `json:"session_id"`
	RoundSeq  int       `json:"round"`
	Line      int       `json:"line"` // the compact_boundary line
	At        time.Time `json:"at"`
	Trigger   string    `json:"trigger,omitempty"`    // auto | manual
	PreTokens int64     `json:"pre_tokens,omitempty"` // the context the client compacted
	// Summary is the client's own summary of what came before (the
	// isCompactSummary line that follows the boundary).
	Summary string `json:"summary,omitempty"`
	// StepsBefore is how many steps of its round lie before the boundary
	// when an output keeps the round's later steps: steps 1 to StepsBefore
	// are left to the summary and named so `cairn inject` can read them.
	StepsBefore int `json:"steps_before,omitempty"`
}
