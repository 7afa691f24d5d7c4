package cairn

import "time"

// DefaultSession is the session id of an actor that did not say which
// session it is.
const DefaultSession = "default"

// A Move is one entry of a trace: at Time the actor left the situation From
// for the situation To because of Trigger. Situations are folders named by
// their slash-separated path from the workspace root ("." is the root).
type Move struct {
	Time    time.Time
	From    string
	To      string
	Trigger string
}

// BackTrigger starts the trigger of a move made by going back, so replaying
// a trace pops instead of pushes. See [Trace.Stack].
const BackTrigger = "back"

// ExitTrigger starts the trigger of the move a session records when it
// ends (checkpoint-on-exit): it stays where it is.
const ExitTrigger = "exit"

// IsBack reports whether m returned to an earlier situation.
func (m *Move) IsBack() bool {
	return m.Trigger == BackTrigger || len(m.Trigger) > len(BackTrigger) && m.Trigger[:len(BackTrigger)+1] == BackTrigger+":"
}

// A Trace is one actor's navigation log: private to the session that wrote
// it, a directed walk through situations.
type Trace struct {
	Session string
	Moves   []*Move
}

// Current returns the situation the actor is in: where its last move went,
// or "" if it never moved.
func (t *Trace) Current() string {
	if len(t.Moves) == 0 {
		return ""
	}
	return t.Moves[len(t.Moves)-1].To
}

// Path returns the sequence of situations the actor went through: the
// first move's origin, then each move's destination. A move that stays
// where it is (as on exit) adds nothing.
func (t *Trace) Path() []string {
	if len(t.Moves) == 0 {
		return nil
	}
	path := []string{t.Moves[0].From}
	for _, m := range t.Moves {
		if m.To != path[len(path)-1] {
			path = append(path, m.To)
		}
	}
	return path
}

// Stack replays the trace like a browser's history: a move pushes its
// destination, a move made by going back pops. The last element is the
// current situation; the one before it is where going back leads. A move
// that stays where it is (as on exit) changes nothing.
func (t *Trace) Stack() []string {
	if len(t.Moves) == 0 {
		return nil
	}
	stack := []string{t.Moves[0].From}
	for _, m := range t.Moves {
		if m.IsBack() && len(stack) > 1 {
			stack = stack[:len(stack)-1]
		}
		if stack[len(stack)-1] != m.To {
			stack = append(stack, m.To)
		}
	}
	return stack
}

// TraceStore reads and appends traces.
type TraceStore interface {
	// FindTrace returns a session's trace. Returns ENOTFOUND if the session
	// never moved.
	FindTrace(session string) (*Trace, error)

	// AppendMove adds m to the session's trace.
	AppendMove(session string, m *Move) error
}
