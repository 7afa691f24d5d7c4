package workspace_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestExit_AutoBounded: however many times sessions end, the board keeps
// one automatic checkpoint per session and the last few sessions' only;
// a checkpoint someone wrote stays.
func TestExit_AutoBounded(t *testing.T) {
	w := MustInit(t)
	w.Session = "mine"
	if err := w.Checkpoint(".", &cairn.Checkpoint{Done: "written by hand"}); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for i := 0; i < 40; i++ {
		w.Session = fmt.Sprintf("s%d", i%8)
		if _, err := w.Exit(".", &cairn.Checkpoint{Done: fmt.Sprintf("Session %s ended (other) after %d rounds", w.Session, i)}, "session end (other)"); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(w.Root, cairn.BoardFile))
		sizes = append(sizes, len(data))
	}
	b, err := w.FindBoard(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var auto int
	for _, c := range b.Checkpoints {
		if c.Auto == "" {
			continue
		}
		auto++
		if seen[c.Session] {
			t.Errorf("two automatic checkpoints of %s", c.Session)
		}
		seen[c.Session] = true
	}
	if auto != cairn.AutoCheckpoints || !strings.Contains(b.Text, "written by hand") || !strings.Contains(b.Text, "after 39 rounds") {
		t.Errorf("%d automatic checkpoints, want %d, and the hand-written one:\n%s", auto, cairn.AutoCheckpoints, b.Text)
	}
	if sizes[39] != sizes[19] {
		t.Errorf("the board grew from %d to %d bytes", sizes[19], sizes[39])
	}
}

// TestExit_ExhaustionKept: a session's end replaces its earlier end, not
// the checkpoint of its context's exhaustion, which names the session
// prepared for it.
func TestExit_ExhaustionKept(t *testing.T) {
	w := MustInit(t)
	w.Session = "mine"
	if _, err := w.Exit(".", &cairn.Checkpoint{Done: "Context exhausted: claude --resume 0000"}, "exhaustion (auto-compact)"); err != nil {
		t.Fatal(err)
	}
	for _, why := range []string{"session end (other)", "session end (clear)", "session end (other)"} {
		if _, err := w.Exit(".", &cairn.Checkpoint{Done: "Session mine ended"}, why); err != nil {
			t.Fatal(err)
		}
	}
	b, err := w.FindBoard(".")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(b.Text, "- Auto: exit: session end") != 1 || !strings.Contains(b.Text, "Context exhausted") {
		t.Errorf("want the exhaustion and one session end:\n%s", b.Text)
	}
}
