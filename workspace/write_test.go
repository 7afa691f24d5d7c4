package workspace

import (
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// countSyncs counts the fsyncs of files and folders until the test ends.
func countSyncs(t *testing.T) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	was := fsync
	fsync = func(f *os.File) error { n.Add(1); return was(f) }
	t.Cleanup(func() { fsync = was })
	return &n
}

// TestSessionEnd_WritesWhatChanged: a session's end (what
// [Workspace.SessionChanged] and [Workspace.EndSession] write) run again
// with nothing new syncs nothing, where it rewrote the session's record,
// the board and the trace (6 fsyncs); an end a minute later writes the
// board and the trace, whose changes it made, and syncs each file and
// each of their two folders once (4, was 6); another session's end, which
// also names itself in state.json and records the sync, syncs its 4 files
// and 3 folders once each (7, was 10).
func TestSessionEnd_WritesWhatChanged(t *testing.T) {
	w := New(t.TempDir())
	if _, err := w.Init(); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	w.Now = func() time.Time { return now }
	start := func(session string) {
		t.Helper()
		w.Session = session
		if err := w.StartSession(); err != nil {
			t.Fatal(err)
		}
	}
	end := func() {
		t.Helper()
		if _, err := w.SessionChanged(nil); err != nil {
			t.Fatal(err)
		}
		c := func(*cairn.State) *cairn.Checkpoint {
			return &cairn.Checkpoint{Done: "Session " + w.Session + " ended (quit)", Time: now}
		}
		if _, err := w.EndSession(".", "session end (quit)", c); err != nil {
			t.Fatal(err)
		}
	}
	start("s1")
	end()
	syncs := countSyncs(t)
	end()
	if n := syncs.Load(); n != 0 {
		t.Errorf("an end with nothing new synced %d times, want 0", n)
	}
	trace, err := w.FindTrace("s1")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(trace.Moves); n != 1 {
		t.Errorf("the trace holds %d moves, want 1: the same stay in the same minute once", n)
	}

	now = now.Add(time.Minute)
	end()
	if n := syncs.Load(); n != 4 {
		t.Errorf("an end a minute later synced %d times, want 4: board and trace, and their folders once each", n)
	}
	if trace, err = w.FindTrace("s1"); err != nil {
		t.Fatal(err)
	} else if n := len(trace.Moves); n != 2 {
		t.Errorf("the trace holds %d moves, want 2", n)
	}
	board, err := w.FindBoard(".")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(board.Checkpoints); n != 1 || !board.Checkpoints[0].Time.Equal(now) {
		t.Errorf("the board holds %d checkpoints, want the later end's alone: %+v", n, board.Checkpoints)
	}

	start("s2")
	syncs.Store(0)
	end()
	if n := syncs.Load(); n != 7 {
		t.Errorf("another session's end synced %d times, want 7: board, trace, state.json, the sync record and their 3 folders once each", n)
	}
	state, err := w.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	if state.SessionID != "s2" {
		t.Errorf("state.json names session %q, want s2", state.SessionID)
	}
	if _, err := w.Sync(StateChange{}); cairn.ErrorCode(err) != cairn.ECONFLICT {
		t.Errorf("a sync after the end found something new to record (%v): the sync record is not of state.json as written", err)
	}
}

// TestWriteFiles_KeepsMode: a file written again keeps its mode, and one
// already holding the bytes is not replaced.
func TestWriteFiles_KeepsMode(t *testing.T) {
	path := t.TempDir() + "/f"
	if err := os.WriteFile(path, []byte("a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFile(path, []byte("a\n")); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(path); err != nil {
		t.Fatal(err)
	} else if !os.SameFile(before, after) {
		t.Error("a file holding its bytes already was replaced")
	}
	if err := writeFile(path, []byte("b\n")); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if after.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode is %v, want 0600 as before", after.Mode().Perm())
	}
	if data, _ := os.ReadFile(path); string(data) != "b\n" {
		t.Errorf("got %q", data)
	}
}
