package workspace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
)

// Hand-offs follow the seed's sub-agent protocol: the parent writes the
// task into state.json and spawns a child; the child reads it (cairn prime
// shows open hand-offs), does the work and writes its result back; the
// parent reads the result. They share no memory, only the file.

// Handoff records a task for a child agent in state.json and returns it.
// Returns EINVALID for an empty task.
func (w *Workspace) Handoff(task, expected string) (*cairn.Handoff, error) {
	if strings.TrimSpace(task) == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "A hand-off needs a task for the child.")
	}
	var h *cairn.Handoff
	_, err := w.UpdateState(func(s *cairn.State) error {
		n := 0
		for _, h := range s.Handoffs {
			n = max(n, handoffNumber(h.ID))
		}
		h = &cairn.Handoff{ID: fmt.Sprintf("H-%03d", n+1), Task: strings.TrimSpace(task), Expected: strings.TrimSpace(expected),
			Status: cairn.HandoffOpen, Parent: w.Session, Created: w.now()}
		s.Handoffs = append(s.Handoffs, h)
		return nil
	})
	return h, err
}

// HandoffResult records what the child did for hand-off ref (H-002, 2), or
// for the only open hand-off when ref is empty. Returns ENOTFOUND for an
// unknown hand-off, EINVALID when ref is empty and several are open (or
// none), and ECONFLICT if the hand-off already has a result.
func (w *Workspace) HandoffResult(ref, result string) (*cairn.Handoff, error) {
	if strings.TrimSpace(result) == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "Say what the child did: the result is what the parent will read.")
	}
	var h *cairn.Handoff
	_, err := w.UpdateState(func(s *cairn.State) error {
		var err error
		if h, err = findHandoff(s, ref); err != nil {
			return err
		}
		if h.Status == cairn.HandoffDone {
			return cairn.Errorf(cairn.ECONFLICT, "Hand-off %s already has a result (from %s).", h.ID, h.Child)
		}
		now := w.now()
		h.Status, h.Result, h.Child, h.Done = cairn.HandoffDone, strings.TrimSpace(result), w.Session, &now
		return nil
	})
	return h, err
}

// FindHandoff returns hand-off ref, or the only open one when ref is
// empty, with the same errors as [Workspace.HandoffResult].
func (w *Workspace) FindHandoff(ref string) (*cairn.Handoff, error) {
	s, err := w.ReadState()
	if err != nil {
		return nil, err
	}
	return findHandoff(s, ref)
}

func findHandoff(s *cairn.State, ref string) (*cairn.Handoff, error) {
	if ref == "" {
		var open []*cairn.Handoff
		for _, h := range s.Handoffs {
			if h.Status == cairn.HandoffOpen {
				open = append(open, h)
			}
		}
		switch len(open) {
		case 1:
			return open[0], nil
		case 0:
			return nil, cairn.Errorf(cairn.EINVALID, "No hand-off is open: name one (cairn handoff --list shows them).")
		}
		return nil, cairn.Errorf(cairn.EINVALID, "%d hand-offs are open: name one (cairn handoff --list shows them).", len(open))
	}
	n := handoffNumber(ref)
	for _, h := range s.Handoffs {
		if h.ID == ref || n > 0 && handoffNumber(h.ID) == n {
			return h, nil
		}
	}
	return nil, cairn.Errorf(cairn.ENOTFOUND, "No hand-off %s in state.json.", ref)
}

func handoffNumber(id string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.ToUpper(id), "H-"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}
