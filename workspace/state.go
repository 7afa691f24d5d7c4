package workspace

import (
	"github.com/cairn-dev/cairn"
)

var _ cairn.StateStore = (*Workspace)(nil)

// ReadState returns state.json as it is now, or a fresh state if there is
// none. Returns EINVALID, naming line and column, if the file is malformed.
func (w *Workspace) ReadState() (*cairn.State, error) {
	s, _, err := w.readState()
	return s, err
}

// readState is [Workspace.ReadState] with the bytes state.json held (nil:
// no file), so that a caller holding the lock reads it once for what it
// decides, writes and fingerprints.
func (w *Workspace) readState() (*cairn.State, []byte, error) {
	data, err := readFile(w.path(cairn.StateFile))
	if err != nil {
		return nil, nil, err
	}
	s := newState()
	if data != nil {
		if err := decodeJSON(cairn.StateFile, data, stateSchema, s); err != nil {
			return nil, nil, err
		}
	}
	return s, data, nil
}

// UpdateState applies fn to state.json as it is on disk, under the lock,
// and stamps the result with the time and the acting session. Nothing is
// written if fn or the file fails.
func (w *Workspace) UpdateState(fn func(*cairn.State) error) (*cairn.State, error) {
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return w.updateState(fn)
}

// updateState is UpdateState for a caller that holds the lock.
func (w *Workspace) updateState(fn func(*cairn.State) error) (*cairn.State, error) {
	s, e, err := w.stateEdit(fn)
	if err != nil {
		return nil, err
	}
	return s, writeFiles(e)
}

// stateEdit is state.json with fn applied and stamped, for a caller that
// holds the lock to write.
func (w *Workspace) stateEdit(fn func(*cairn.State) error) (*cairn.State, edit, error) {
	s, held, err := w.readState()
	if err != nil {
		return nil, edit{}, err
	}
	if err := fn(s); err != nil {
		return nil, edit{}, err
	}
	e, err := w.stamped(s, held)
	return s, e, err
}

// stamped is the edit that writes s stamped with the time and the acting
// session over held, the bytes state.json held when the caller, holding
// the lock, read s from it.
func (w *Workspace) stamped(s *cairn.State, held []byte) (edit, error) {
	s.LastUpdate = w.now()
	s.SessionID = w.Session
	data, err := encodeJSON(s)
	return edit{path: w.path(cairn.StateFile), data: data, held: held, read: true}, err
}

func newState() *cairn.State {
	return &cairn.State{Progress: cairn.Progress{Completed: []string{}, Blocked: []string{}, NextSteps: []string{}}}
}

// StateChange is a change to the state that `cairn state set` and `cairn
// sync` make. Zero fields change nothing.
type StateChange struct {
	Phase      string
	Task       string
	InProgress *string  // nil: unchanged; "" clears it
	Completed  []string // appended to progress.completed
	Blocked    []string // appended to progress.blocked
	Unblocked  []string // removed from progress.blocked
	NextSteps  []string // replace progress.next_steps
	Notes      *string
}

// IsZero reports whether c changes nothing.
func (c *StateChange) IsZero() bool {
	return c.Phase == "" && c.Task == "" && c.InProgress == nil && len(c.Completed) == 0 &&
		len(c.Blocked) == 0 && len(c.Unblocked) == 0 && c.NextSteps == nil && c.Notes == nil
}

// Apply makes the change to s. Returns ENOTFOUND if it unblocks an item
// that is not blocked.
func (c *StateChange) Apply(s *cairn.State) error {
	if c.Phase != "" {
		s.Phase = c.Phase
	}
	if c.Task != "" {
		s.CurrentTask = c.Task
	}
	if c.InProgress != nil {
		s.Progress.InProgress = *c.InProgress
	}
	s.Progress.Completed = append(s.Progress.Completed, c.Completed...)
	for _, b := range c.Unblocked {
		i := indexOf(s.Progress.Blocked, b)
		if i < 0 {
			return cairn.Errorf(cairn.ENOTFOUND, "%q is not in progress.blocked.", b)
		}
		s.Progress.Blocked = append(s.Progress.Blocked[:i], s.Progress.Blocked[i+1:]...)
	}
	s.Progress.Blocked = append(s.Progress.Blocked, c.Blocked...)
	if c.NextSteps != nil {
		s.Progress.NextSteps = c.NextSteps
	}
	if c.Notes != nil {
		s.Notes = *c.Notes
	}
	return nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// readJSON decodes the file at path into v, leaving v as it is if the file
// does not exist.
func readJSON(path, name string, s *schema, v any) error {
	data, err := readFile(path)
	if err != nil || data == nil {
		return err
	}
	return decodeJSON(name, data, s, v)
}

func writeJSON(path string, v any) error {
	data, err := encodeJSON(v)
	if err != nil {
		return err
	}
	return writeFile(path, data)
}
