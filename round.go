package cairn

import (
	"context"
	"time"
)

// A Round is one real user message plus everything the agent produced
// before the next real user message. Round 0 holds what comes before the
// first user message (metadata, hook output).
type Round struct {
	SessionID string    `json:"session_id"`
	Seq       int       `json:"seq"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	FirstLine int       `json:"first_line"`
	LastLine  int       `json:"last_line"`

	UserPreview  string   `json:"user_preview"`
	AgentPreview string   `json:"agent_preview"`
	Tools        []string `json:"tools,omitempty"` // tool names called, in order, without repeats
	// ToolCalls counts the round's tool calls on its main chain; set only
	// when the filter asks for it ([RoundFilter.ToolCalls]), absent from JSON
	// otherwise.
	ToolCalls int   `json:"tool_calls,omitempty"`
	Usage     Usage `json:"usage"`

	// Tags: kept in the index, never in the block store.
	EngagementID string `json:"engagement,omitempty"`
	FrameID      string `json:"frame,omitempty"`

	Blocks []*Block `json:"blocks,omitempty"` // set by FindRound only
}

// Roles returns the round's role summary for an index line.
func (r *Round) Roles() string {
	if r.Seq == 0 {
		return "system"
	}
	return "user→assistant"
}

// RoundFilter selects rounds. Zero fields do not filter.
type RoundFilter struct {
	SessionID    string
	EngagementID string
	FrameID      string // the frame's log: rounds tagged with it
	Tagged       bool   // only rounds with an engagement
	FromSeq      int
	ToSeq        int // inclusive
	Since        time.Time
	Until        time.Time
	WithBlocks   bool // load each round's blocks
	ToolCalls    bool // count each round's tool calls (Round.ToolCalls)
	// Last keeps only the last Last rounds of the order (0: all). A frame's
	// or an engagement's last rounds are read from the index without
	// reading the others.
	Last int
}

// RoundStore reads rounds.
type RoundStore interface {
	// FindRound returns one round with its blocks. Returns ENOTFOUND if the
	// session or round does not exist.
	FindRound(ctx context.Context, sessionID string, seq int) (*Round, error)

	// FindRounds returns the rounds matching filter in session then seq order.
	FindRounds(ctx context.Context, filter RoundFilter) ([]*Round, error)

	// CountRounds returns how many rounds match filter, ignoring its Last.
	CountRounds(ctx context.Context, filter RoundFilter) (int, error)
}
