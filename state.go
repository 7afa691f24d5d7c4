package cairn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// The relay files: plain files at a workspace's root that people, agents
// and git read and edit. They are the single source of truth across
// sessions and sub-agents; every session reads them on a cold start and
// writes them back before it ends.
const (
	ProjectFile   = "PROJECT.md"     // who the project is; rarely changes
	StateFile     = "state.json"     // where the project is; a [State]
	DecisionsFile = "decisions.md"   // why: [Decision] records, append-only
	TodosFile     = "todos.json"     // what is left: a [TodoList]
	BoardFile     = "board.md"       // a situation's board: see [Board]
	IndexFile     = "index.md"       // a situation's index: what exists there
	EngageFile    = "engagement.md"  // under .cairn/: the active [Engagement]
	TracesDir     = "traces"         // under .cairn/: one [Trace] per session
	SyncFile      = "last-sync.json" // under .cairn/: what the last sync saw
)

// State is a project's current position, kept in state.json: the phase,
// the task at hand, progress, and the hand-offs between a parent agent and
// its children.
type State struct {
	Phase       string    `json:"phase"`
	CurrentTask string    `json:"current_task"`
	Progress    Progress  `json:"progress"`
	LastUpdate  time.Time `json:"last_update"`
	SessionID   string    `json:"session_id"`
	Notes       string    `json:"notes"`

	// Handoffs are tasks a parent wrote for a child and the results the
	// child wrote back. Parent and child talk only through this file.
	Handoffs []*Handoff `json:"handoffs,omitempty"`

	// Extra holds fields a person added by hand; they are written back
	// unchanged.
	Extra map[string]json.RawMessage `json:"-"`
}

// Progress is what is done, under way, stuck and next.
type Progress struct {
	Completed  []string `json:"completed"`
	InProgress string   `json:"in_progress"`
	Blocked    []string `json:"blocked"`
	NextSteps  []string `json:"next_steps"`

	Extra map[string]json.RawMessage `json:"-"`
}

// Hand-off statuses.
const (
	HandoffOpen = "open" // written by the parent, waiting for the child
	HandoffDone = "done" // the child recorded its result
)

// A Handoff is one task a parent agent gave a child, and what came back.
type Handoff struct {
	ID       string     `json:"id"` // H-001, H-002, …
	Task     string     `json:"task"`
	Expected string     `json:"expected,omitempty"` // what the parent wants back
	Status   string     `json:"status"`
	Parent   string     `json:"parent,omitempty"` // the parent's session
	Child    string     `json:"child,omitempty"`  // the child's session, once it answered
	Created  time.Time  `json:"created"`
	Done     *time.Time `json:"done,omitempty"`
	Result   string     `json:"result,omitempty"`
}

// Todo statuses and priorities.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
	TodoBlocked    = "blocked"

	PriorityHigh   = "high"
	PriorityMedium = "medium"
	PriorityLow    = "low"
)

// ReviewInterval is how old todos.json's last review may grow before a
// session is reminded to review every todo.
const ReviewInterval = 24 * time.Hour

// A TodoList is todos.json: the agent's own list, carried across sessions.
type TodoList struct {
	Todos      []*Todo    `json:"todos"`
	LastReview *time.Time `json:"last_review"`

	Extra map[string]json.RawMessage `json:"-"`
}

// ReviewDue reports whether the last review is older than [ReviewInterval]
// at now, or never happened.
func (l *TodoList) ReviewDue(now time.Time) bool {
	return l.LastReview == nil || now.Sub(*l.LastReview) > ReviewInterval
}

// ReviewReason says why a review is due at now, for a person ("the todos
// were never reviewed", "the last review (…) is over 24 h old"), or "" when
// none is.
func (l *TodoList) ReviewReason(now time.Time) string {
	switch {
	case !l.ReviewDue(now):
		return ""
	case l.LastReview == nil:
		return "the todos were never reviewed"
	}
	return fmt.Sprintf("the last review (%s) is over 24 h old", l.LastReview.UTC().Format(time.RFC3339))
}

// A Todo is one work item. Blocked todos say why in Notes.
type Todo struct {
	ID          string     `json:"id"` // TODO-001, TODO-002, …
	Title       string     `json:"title"`
	Priority    string     `json:"priority"`
	Status      string     `json:"status"`
	Created     time.Time  `json:"created"`
	Updated     *time.Time `json:"updated"`
	CompletedAt *time.Time `json:"completed_at,omitempty"`
	Notes       string     `json:"notes"`

	Extra map[string]json.RawMessage `json:"-"`
}

// Open reports whether t still needs work.
func (t *Todo) Open() bool { return t.Status != TodoCompleted }

// Decision statuses. A later decision supersedes an older one by naming
// it; the older record is never rewritten.
const (
	DecisionAccepted = "Accepted"
)

// A Decision is one architecture decision record in decisions.md.
type Decision struct {
	Number       int // ADR-001 is 1
	Title        string
	Date         time.Time
	Status       string
	Context      string
	Decision     string
	Consequences string
	Supersedes   int // the number of the decision this one replaces, or 0
}

// StateStore reads and writes state.json.
type StateStore interface {
	// ReadState returns the state as the file holds it now. Returns
	// EINVALID, naming line and column, if the file is malformed.
	ReadState() (*State, error)

	// UpdateState reads the file afresh, applies fn and writes the result,
	// all under the workspace lock, so a hand edit made before the call is
	// kept. Nothing is written if fn returns an error.
	UpdateState(fn func(*State) error) (*State, error)
}

// TodoStore reads and writes todos.json.
type TodoStore interface {
	// ReadTodos returns the list as the file holds it now.
	ReadTodos() (*TodoList, error)

	// UpdateTodos reads the file afresh, applies fn and writes the result
	// under the workspace lock.
	UpdateTodos(fn func(*TodoList) error) (*TodoList, error)
}

// DecisionStore reads and appends decisions.md.
type DecisionStore interface {
	// FindDecisions returns every record, oldest first.
	FindDecisions() ([]*Decision, error)

	// AppendDecision numbers d after the last record and appends it.
	// Returns ENOTFOUND if d supersedes a record that does not exist.
	AppendDecision(d *Decision) error
}

// The JSON methods keep fields a person added by hand: known fields are
// written in their declared order, then the extra ones sorted by name.

type (
	jsonState    State
	jsonProgress Progress
	jsonTodoList TodoList
	jsonTodo     Todo
)

func (s State) MarshalJSON() ([]byte, error) { return marshalExtra(jsonState(s), s.Extra) }
func (s *State) UnmarshalJSON(b []byte) error {
	return unmarshalExtra(b, (*jsonState)(s), &s.Extra)
}
func (p Progress) MarshalJSON() ([]byte, error) { return marshalExtra(jsonProgress(p), p.Extra) }
func (p *Progress) UnmarshalJSON(b []byte) error {
	return unmarshalExtra(b, (*jsonProgress)(p), &p.Extra)
}
func (l TodoList) MarshalJSON() ([]byte, error) { return marshalExtra(jsonTodoList(l), l.Extra) }
func (l *TodoList) UnmarshalJSON(b []byte) error {
	return unmarshalExtra(b, (*jsonTodoList)(l), &l.Extra)
}
func (t Todo) MarshalJSON() ([]byte, error) { return marshalExtra(jsonTodo(t), t.Extra) }
func (t *Todo) UnmarshalJSON(b []byte) error {
	return unmarshalExtra(b, (*jsonTodo)(t), &t.Extra)
}

func marshalExtra(v any, extra map[string]json.RawMessage) ([]byte, error) {
	b, err := marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1]) // without the closing brace
	for _, k := range keys {
		name, _ := json.Marshal(k)
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(extra[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping: the files are read by
// people, who should see "<" and "&" as they wrote them.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func unmarshalExtra(b []byte, v any, extra *map[string]json.RawMessage) error {
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	known := jsonNames(reflect.TypeOf(v).Elem())
	*extra = nil
	for k, raw := range all {
		if !known[k] {
			if *extra == nil {
				*extra = map[string]json.RawMessage{}
			}
			(*extra)[k] = raw
		}
	}
	return nil
}

// jsonNames returns the JSON names of t's fields.
func jsonNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names[name] = true
		}
	}
	return names
}

// An Engagement is a workstream in progress: where the workspace is in its
// procedure, readable by any actor that enters. Rounds recorded while an
// engagement is active are tagged with its ID.
type Engagement struct {
	ID      string
	Active  bool
	Session string // who started it
	Started time.Time
	Stopped *time.Time
	Notes   []string // one line each, oldest first

	// Phases are its named transitions, oldest first; the first starts
	// with the engagement and the last ends when it stops.
	Phases []EngagementPhase
}
