package loop

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/cairn-dev/cairn"
)

// TestEnd_ReadsStateOnce: a session's end opens state.json once (its exit
// checkpoint's next step, the sync, the stamp and the sync record's
// fingerprint all come from that read, made under the workspace's lock),
// counted by the kernel (inotify), whatever reads it; run again with
// nothing new, once too. The board is opened once at most as well: what
// the checkpoint read is what the write compares with. The end still
// stamps the state with the session and puts the task in progress on the
// board as the next step.
func TestEnd_ReadsStateOnce(t *testing.T) {
	l, ev := sampleSessionStarted(t)
	now := l.Now()
	other := *l.Workspace
	other.Session = "s0"
	if _, err := other.UpdateState(func(s *cairn.State) error {
		s.Progress.InProgress = "wire the lexer"
		for i := range 73 {
			s.Handoffs = append(s.Handoffs, &cairn.Handoff{ID: fmt.Sprintf("H-%03d", i+1), Task: "task", Status: cairn.HandoffDone, Created: now, Done: &now})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"end", "end again"} {
		opens := watchOpens(t, l.Wd)
		handle(t, l, ev)
		if n := opens(cairn.StateFile); n != 1 {
			t.Errorf("%s: state.json opened %d times, want 1", run, n)
		}
		if n := opens(cairn.BoardFile); n > 1 {
			t.Errorf("%s: board.md opened %d times, want at most 1", run, n)
		}
	}
	s, err := l.Workspace.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	if s.SessionID != "s1" || s.Progress.InProgress != "wire the lexer" || len(s.Handoffs) != 73 {
		t.Errorf("state after the end: session %q, in progress %q, %d hand-offs", s.SessionID, s.Progress.InProgress, len(s.Handoffs))
	}
	board, err := os.ReadFile(filepath.Join(l.Wd, cairn.BoardFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(board, []byte("wire the lexer")) || !bytes.Contains(board, []byte("Session s1 ended (logout)")) {
		t.Errorf("the board lacks the exit checkpoint with its next step:\n%s", board)
	}
}

// watchOpens counts, from now, the opens of each file in dir, as the
// kernel reports them; the function it returns reads the count of name.
// Closes are watched too, since inotify merges an event with the one
// queued before it when they are the same.
func watchOpens(t *testing.T, dir string) func(name string) int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN|syscall.IN_CLOSE); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	return func(name string) int {
		time.Sleep(10 * time.Millisecond)
		buf := make([]byte, 64<<10)
		for {
			n, err := syscall.Read(fd, buf)
			if n <= 0 || err != nil {
				break
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				raw := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
				if ev.Mask&syscall.IN_OPEN != 0 {
					counts[strings.TrimRight(string(raw), "\x00")]++
				}
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
		return counts[name]
	}
}
