package cairn

import (
	"context"
	"time"
	"unicode/utf8"
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

	// FindRoundPage returns one round with the page of its blocks that
	// page selects, read without the others, and how many blocks the
	// round has. Returns ENOTFOUND if the session or round does not exist.
	FindRoundPage(ctx context.Context, sessionID string, seq int, page BlockPage) (*Round, int, error)
}

// A BlockPage selects part of a round's blocks, in round order: from the
// From'th (0-based), at most Limit of them, and no more than Bytes bytes of
// content in all, except that a page always holds its first block. A block
// longer than Bytes is cut to it (Block.Size then says how long it is). A
// store reads only the page's blocks, each block's content at most once,
// so a page costs about Bytes of memory whatever the round's size.
type BlockPage struct {
	From, Limit, Bytes int
}

// Full reports whether a page that holds n blocks of size bytes of content
// has no room for a block of next bytes.
func (p BlockPage) Full(n, size, next int) bool {
	return n >= p.Limit || (n > 0 && size+min(next, p.Bytes) > p.Bytes)
}

// Cut cuts b's content, size bytes long as stored and read as at most its
// first Bytes characters, to Bytes bytes at a character boundary, and sets
// b.Size when it cut.
func (p BlockPage) Cut(b *Block, size int) {
	if len(b.Content) <= p.Bytes && size <= p.Bytes {
		return
	}
	cut := min(p.Bytes, len(b.Content))
	for cut > 0 && cut < len(b.Content) && !utf8.RuneStart(b.Content[cut]) {
		cut--
	}
	b.Content, b.Size = b.Content[:cut], size
}
