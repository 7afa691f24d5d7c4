package cairn

import (
	"context"
	"strings"
	"time"
)

// Agents whose transcripts cairn reads.
const (
	AgentClaudeCode = "claude-code"
	AgentCodex      = "codex"
	AgentOpencode   = "opencode"
	AgentGemini     = "gemini"
	AgentPi         = "pi"
)

// Lineage kinds: how a session came to be.
const (
	LineageImport   = "import"   // inscribed from an agent's transcript
	LineageSubagent = "subagent" // a subagent spawned by a tool call of its parent
	LineageSurgery  = "surgery"  // exported by a surgical operation
	LineageRevive   = "revive"   // exported by revive for a successor agent
)

// A Session is one agent conversation: a Claude Code transcript file, a
// subagent's file, or a session that surgery exported.
type Session struct {
	// ID is the session's uuid for a main session; a subagent's ID is its
	// parent's ID followed by "-agent-" and the agent id.
	ID    string `json:"id"`
	Agent string `json:"agent"`

	// Lineage says how the session was made; Parent is the session it came
	// from (for a subagent, the session whose tool call spawned it) and
	// ParentRound that tool call's round, 0 when unknown.
	Lineage     string `json:"lineage"`
	Parent      string `json:"parent,omitempty"`
	ParentRound int    `json:"parent_round,omitempty"`
	AgentID     string `json:"agent_id,omitempty"`

	// Parents are every session a surgical export was cut from (a merge
	// has two; Parent is the first) and Operation the operation that cut it.
	Parents   []string `json:"parents,omitempty"`
	Operation string   `json:"operation,omitempty"`
	// Recipe is what a surgical export was cut with ([Materialization.Recipe]):
	// two exports with the same recipe are the same session.
	Recipe string `json:"recipe,omitempty"`

	Project   string `json:"project,omitempty"` // the agent's working directory
	Title     string `json:"title,omitempty"`
	Version   string `json:"version,omitempty"` // the client version that wrote it
	GitBranch string `json:"git_branch,omitempty"`
	Path      string `json:"path,omitempty"` // the file it was read from or written to

	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	Lines     int       `json:"lines"`
	Rounds    int       `json:"rounds"`
	Usage     Usage     `json:"usage"`
	// ToolCalls counts the tool calls of its main chain; set only when the
	// filter asks for it ([SessionFilter.ToolCalls]), absent from JSON
	// otherwise.
	ToolCalls int `json:"tool_calls,omitempty"`

	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// IsSubagent reports whether s was spawned by another session's tool call.
func (s *Session) IsSubagent() bool { return s.Lineage == LineageSubagent }

// Validate returns an error if s lacks what every stored session needs.
func (s *Session) Validate() error {
	if s.ID == "" {
		return Errorf(EINVALID, "Session ID required.")
	} else if s.Agent == "" {
		return Errorf(EINVALID, "Session agent required.")
	}
	return nil
}

// Usage counts tokens, deduplicated by API message.
type Usage struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.Input + v.Input, u.Output + v.Output, u.CacheRead + v.CacheRead, u.CacheCreation + v.CacheCreation}
}

// Context returns the tokens a request carried into the context window.
func (u Usage) Context() int64 { return u.Input + u.CacheRead + u.CacheCreation }

// SessionFilter selects sessions. Zero fields do not filter.
type SessionFilter struct {
	Project   string    // exact working directory, or a prefix ending in '/' or '*'
	Since     time.Time // sessions that ended at or after
	Until     time.Time // sessions that started before
	Subagents bool      // include subagent sessions
	Agent     string    // the harness that wrote it: AgentClaudeCode, AgentCodex, AgentGemini, AgentOpencode, AgentPi

	// NoSurgery leaves out the sessions cairn's own surgery cut: they
	// repeat rounds of the sessions they came from. One that ended after
	// the store first held it (CreatedAt) was resumed and continued: it
	// is the user's session, and is kept.
	NoSurgery bool

	// Recipe selects the surgical exports cut with this recipe (see
	// [Materialization.Recipe]).
	Recipe string

	// ToolCalls counts each session's tool calls (Session.ToolCalls), which
	// reads the index of every tool call: a list asks for it, a lookup not.
	ToolCalls bool

	Offset int
	Limit  int
}

// SessionStore reads sessions.
type SessionStore interface {
	// FindSessionByID returns the session whose ID is ref or, failing that,
	// the one session whose ID starts with ref; main sessions are preferred
	// over subagents. Returns ENOTFOUND if none matches and EINVALID if the
	// prefix is ambiguous.
	FindSessionByID(ctx context.Context, ref string) (*Session, error)

	// FindSessions returns the sessions matching filter, newest first, and
	// the number that match without Offset and Limit.
	FindSessions(ctx context.Context, filter SessionFilter) ([]*Session, int, error)

	// SetLineage records how an inscribed session was made: lineage (such
	// as [LineageSurgery]), the sessions it came from, the operation and,
	// for a surgical export, its recipe ([Materialization.Recipe]; "" for
	// none). Parent becomes parents[0]. Returns ENOTFOUND if the session
	// does not exist.
	SetLineage(ctx context.Context, id, lineage string, parents []string, operation, recipe string) error
}

// ResolveSessionRef picks the session ref names from candidates, the
// sessions whose ID is ref or starts with it (a store passes at most a
// few dozen): the exact match, else the only one, else the only main
// session among them. Returns ENOTFOUND if there is none and EINVALID if
// the prefix is ambiguous. Every [SessionStore] resolves references so.
func ResolveSessionRef(ref string, candidates []*Session) (*Session, error) {
	var main []*Session
	for _, s := range candidates {
		if s.ID == ref {
			return s, nil
		}
		if !s.IsSubagent() {
			main = append(main, s)
		}
	}
	switch {
	case len(candidates) == 0:
		return nil, Errorf(ENOTFOUND, "No session matches %q.", ref)
	case len(candidates) == 1:
		return candidates[0], nil
	case len(main) == 1:
		return main[0], nil
	}
	ids := make([]string, 0, 5)
	for _, s := range candidates[:min(len(candidates), 5)] {
		ids = append(ids, s.ID)
	}
	return nil, Errorf(EINVALID, "Session prefix %q is ambiguous: %s….", ref, strings.Join(ids, ", "))
}
