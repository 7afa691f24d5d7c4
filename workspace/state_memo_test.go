package workspace

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// TestReadState_DecodedOnce: a session's end reads state.json three times
// (its checkpoint's next step, its sync, the sync stamping the session),
// and decodes it once; a state a caller changes leaves the next read as
// the file is, and a file replaced or edited in place is read again.
func TestReadState_DecodedOnce(t *testing.T) {
	w := New(t.TempDir())
	if _, err := w.Init(); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	w.Now = func() time.Time { return now }
	if _, err := w.UpdateState(func(s *cairn.State) error {
		s.Progress.NextSteps = []string{"ship it"}
		for i := 1; i <= 73; i++ {
			s.Handoffs = append(s.Handoffs, &cairn.Handoff{ID: fmt.Sprintf("H-%03d", i), Task: "task", Status: cairn.HandoffDone, Created: now, Done: &now})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	w.Session = "ending"
	before := stateDecodes
	s, err := w.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	s.Progress.NextSteps[0] = "changed by the caller"
	s.Handoffs[0].Task = "changed by the caller"
	c := &cairn.Checkpoint{Done: "Session ending ended (quit)", Next: "ship it", Time: now}
	res, err := w.EndSession(".", c, "session end (quit)")
	if err != nil {
		t.Fatal(err)
	}
	if n := stateDecodes - before; n != 1 {
		t.Errorf("a session's end decoded state.json %d times, want 1", n)
	}
	if res.State.SessionID != "ending" || res.State.Progress.NextSteps[0] != "ship it" || res.State.Handoffs[0].Task != "task" || len(res.State.Handoffs) != 73 {
		t.Errorf("the end's state: session %q, next %q, hand-off %q, %d hand-offs", res.State.SessionID, res.State.Progress.NextSteps, res.State.Handoffs[0].Task, len(res.State.Handoffs))
	}
	if s, err := w.ReadState(); err != nil {
		t.Fatal(err)
	} else if s.SessionID != "ending" {
		t.Errorf("after the end state.json names session %q, want ending", s.SessionID)
	}
	f, err := os.OpenFile(w.path(cairn.StateFile), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(`{"phase": "edited by hand"}` + "\n"))
	f.Close()
	if s, err := w.ReadState(); err != nil {
		t.Fatal(err)
	} else if s.Phase != "edited by hand" || len(s.Handoffs) != 0 {
		t.Errorf("after an edit in place: phase %q, %d hand-offs", s.Phase, len(s.Handoffs))
	}
}
