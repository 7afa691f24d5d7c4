package workspace

import (
	"strings"

	"github.com/cairn-dev/cairn"
)

// The client's sub-agents follow the same hand-off protocol as children
// that call cairn handoff themselves, driven by the hooks: the parent's
// call of the sub-agent tool records the hand-off (its task is the
// prompt), the sub-agent's start names the child, its stop records its
// last answer as the result.

// MaxHandoffResult is how much of a sub-agent's last answer a hand-off
// keeps; the whole answer is in the sub-agent's transcript.
const MaxHandoffResult = 4000

// StartChild names child as the sub-agent working on the oldest open
// hand-off of parent that has no child yet, and returns that hand-off, or
// nil when there is none (the sub-agent was not started through a
// recorded tool call).
func (w *Workspace) StartChild(parent, child string) (*cairn.Handoff, error) {
	var h *cairn.Handoff
	_, err := w.UpdateState(func(s *cairn.State) error {
		for _, o := range s.Handoffs {
			if o.Status == cairn.HandoffOpen && o.Parent == parent && o.Child == "" {
				o.Child, h = child, o
				return nil
			}
		}
		return errNoChange
	})
	if err == errNoChange {
		return nil, nil
	}
	return h, err
}

// FinishChild records result on the open hand-off child works on and
// returns it, or nil when child has none. A result longer than
// [MaxHandoffResult] is cut and says so.
func (w *Workspace) FinishChild(child, result string) (*cairn.Handoff, error) {
	result = strings.TrimSpace(result)
	if result == "" {
		result = "(the sub-agent ended without an answer)"
	}
	if r := []rune(result); len(r) > MaxHandoffResult {
		result = string(r[:MaxHandoffResult]) + "… [cut; the whole answer is in the sub-agent's transcript]"
	}
	var h *cairn.Handoff
	_, err := w.UpdateState(func(s *cairn.State) error {
		for _, o := range s.Handoffs {
			if o.Status == cairn.HandoffOpen && o.Child == child {
				now := w.now()
				o.Status, o.Result, o.Done, h = cairn.HandoffDone, result, &now, o
				return nil
			}
		}
		return errNoChange
	})
	if err == errNoChange {
		return nil, nil
	}
	return h, err
}

// errNoChange aborts an update that has nothing to write.
var errNoChange = &cairn.Error{Code: cairn.ENOTFOUND, Message: "nothing to change"}
