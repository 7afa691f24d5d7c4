package cairn

import "time"

// BlockKind is the type of a block.
type BlockKind string

// The kinds of block. MetaText is text the client injected into the
// conversation (command output, reminders, compaction summaries): it is kept
// but is neither a user's words nor an answer. CompactionBlock marks where the
// client compacted its context: its content names the trigger and the
// context's size before ("Conversation compacted (auto, 167094 tokens)").
const (
	UserText        BlockKind = "user-text"
	AssistantText   BlockKind = "assistant-text"
	Thinking        BlockKind = "thinking"
	ToolUse         BlockKind = "tool-use"
	ToolResult      BlockKind = "tool-result"
	MetaText        BlockKind = "meta-text"
	CompactionBlock BlockKind = "compaction"
)

// Searchable reports whether blocks of kind k are in the search index:
// what was said (user and assistant text), what was done (tool calls and
// their results: commands, paths, output, error text), and where the
// context was compacted, so a reader can find it; not thinking or meta
// text. The index holds a block's [IndexText].
func (k BlockKind) Searchable() bool {
	switch k {
	case UserText, AssistantText, CompactionBlock, ToolUse, ToolResult:
		return true
	}
	return false
}

// A Block is one typed piece of a line. A line holds zero or more blocks.
type Block struct {
	ID        int64     `json:"-"`
	SessionID string    `json:"session_id"`
	RoundSeq  int       `json:"round"`
	LineNo    int       `json:"line"`  // the line it came from, 1-based
	Index     int       `json:"index"` // its position within the round
	Role      string    `json:"role"`  // user | assistant | system
	Kind      BlockKind `json:"kind"`
	Timestamp time.Time `json:"timestamp"`
	Content   string    `json:"content"`

	ToolName  string `json:"tool_name,omitempty"`
	ToolID    string `json:"tool_id,omitempty"`  // joins a tool-use to its tool-result
	AgentID   string `json:"agent_id,omitempty"` // the subagent a tool-result reports on
	IsError   bool   `json:"is_error,omitempty"`
	Sidechain bool   `json:"sidechain,omitempty"` // written by an inline subagent
	MessageID string `json:"message_id,omitempty"`

	// Detail is set on a block a materialization condensed: its Content is
	// then a reference or summary, not what was stored.
	Detail Detail `json:"detail,omitempty"`
	// Size is the stored content's length in bytes, set only when a paged
	// read ([BlockPage]) cut Content shorter.
	Size int `json:"size,omitempty"`
}
