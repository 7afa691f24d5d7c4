package loop

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
	"github.com/cairn-dev/cairn/workspace"
)

// A Change is what a session changed, as its end says it and
// recover shows it: the relay files' changes and the files it wrote
// ([workspace.SessionChanges]; files relative to the workspace when
// inside it), the frames it pushed or planned and those of them it
// popped.
type Change struct {
	workspace.SessionChanges
	Pushed []string `json:"frames_pushed,omitempty"` // "id Title"
	Popped []string `json:"frames_popped,omitempty"`
}

// Limits of the line a session's end writes on the board, which is part of
// the context every SessionStart gives: names per list, runes per name,
// runes for the whole of what changed.
const (
	changeNames    = 3
	changeNameLen  = 48
	changeLineLen  = 320
	changeFileName = 40
)

// String is what changed on one line, bounded (changeLineLen): each list
// names its first few and counts the rest; "" when nothing is known to
// have changed.
func (c *Change) String() string {
	var parts []string
	add := func(what string, names []string, n int) {
		if len(names) == 0 {
			return
		}
		var shown []string
		for _, name := range names[:min(len(names), changeNames)] {
			shown = append(shown, ClipLine(name, n))
		}
		s := what + " " + strings.Join(shown, ", ")
		if more := len(names) - len(shown); more > 0 {
			s += fmt.Sprintf(" (+%d more)", more)
		}
		parts = append(parts, s)
	}
	add("decided", c.Decisions, changeNameLen)
	add("todos added", c.TodosAdded, changeNameLen)
	add("finished", c.TodosDone, changeNameLen)
	add("blocked", c.TodosBlocked, changeNameLen)
	add("frames pushed", c.Pushed, changeNameLen)
	add("popped", c.Popped, changeNameLen)
	add("wrote", c.Files, changeFileName)
	return ClipLine(strings.Join(parts, "; "), changeLineLen)
}

// changed gathers what the session changed: its relay files' changes
// since its runs started, the files its stored rounds wrote, every one
// of them, before and after the client's compactions
// ([Loop.sessionWrites]; session is its id in the store, "" when nothing
// is stored), and its frames.
func (l *Loop) changed(ctx context.Context, session string) (*Change, error) {
	w := l.Workspace
	st, err := l.Open()
	if err != nil {
		return nil, err
	}
	var files []string
	if session != "" {
		if files, err = l.sessionWrites(ctx, st, session); err != nil {
			return nil, err
		}
	}
	rel, err := w.SessionChanged(files)
	if err != nil {
		return nil, err
	}
	frames, err := st.Frames.FindFrames(ctx)
	if err != nil {
		return nil, err
	}
	return ChangeOf(rel, frames, w.Session), nil
}

// ChangeOf is what session changed: rel, and its frames among frames.
func ChangeOf(rel *workspace.SessionChanges, frames []*cairn.Frame, session string) *Change {
	c := &Change{}
	if rel != nil {
		c.SessionChanges = *rel
	}
	for _, f := range frames {
		if f.SessionID != session || session == "" {
			continue
		}
		name := f.ID + " " + f.Title
		c.Pushed = append(c.Pushed, name)
		if surgery.Finished(f) {
			c.Popped = append(c.Popped, name)
		}
	}
	return c
}

// end inscribes what is left, then checkpoints on exit (what the session
// changed, on the current board) and syncs: state.json names this session
// as the last one and the relay files' changes are recorded (idempotent;
// it never refuses as cairn sync does), all of it written together
// ([workspace.Workspace.EndSession]).
func (l *Loop) end(ctx context.Context, in Event) error {
	w := l.Workspace
	last, err := l.Inscribe(ctx, in)
	if err != nil {
		return err
	}
	reason := in.Reason
	if reason == "" {
		reason = "other"
	}
	done := fmt.Sprintf("Session %s ended (%s)", ShortID(w.Session), reason)
	if last != nil {
		done += fmt.Sprintf(" after %d rounds; last: %q", last.Seq, ClipLine(last.UserPreview, 100))
	}
	session := ""
	if last != nil {
		session = last.SessionID
	}
	c, err := l.changed(ctx, session)
	if err != nil {
		return err
	}
	if s := c.String(); s != "" {
		done += "; changed: " + s
	}
	here, err := w.Situation(l.Wd)
	if err != nil {
		return err
	}
	_, err = w.EndSession(here, "session end ("+reason+")", l.exitCheckpoint(done))
	return err
}

// checkpointExit writes a checkpoint on leaving the current situation, as
// the context running out does ([Loop.exitCheckpoint]).
func (l *Loop) checkpointExit(done, why string) error {
	w := l.Workspace
	state, err := w.ReadState()
	if err != nil {
		return err
	}
	here, err := w.Situation(l.Wd)
	if err != nil {
		return err
	}
	_, err = w.Exit(here, l.exitCheckpoint(done)(state), why)
	return err
}

// exitCheckpoint is the checkpoint on leaving the current situation, as a
// session's end and its context running out write it, of the state
// state.json holds: what was done, and as next step the task in progress
// or the first planned one.
func (l *Loop) exitCheckpoint(done string) func(*cairn.State) *cairn.Checkpoint {
	return func(state *cairn.State) *cairn.Checkpoint {
		next := state.Progress.InProgress
		if next == "" && len(state.Progress.NextSteps) > 0 {
			next = state.Progress.NextSteps[0]
		}
		return &cairn.Checkpoint{Done: done, Next: next, Time: l.Workspace.Now().Truncate(time.Second)}
	}
}
