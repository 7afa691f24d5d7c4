package loop

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/workspace"
)

// TestSessionChangeBounded: the line a session's end writes names a few of
// each list and counts the rest, and stays within changeLineLen however
// much changed, since every SessionStart gives the board.
func TestSessionChangeBounded(t *testing.T) {
	var c Change
	if s := c.String(); s != "" {
		t.Errorf("nothing changed, got %q", s)
	}
	long := strings.Repeat("word ", 40)
	for i := range 20 {
		c.Decisions = append(c.Decisions, fmt.Sprintf("ADR-%03d %s", i+1, long))
		c.TodosAdded = append(c.TodosAdded, fmt.Sprintf("TODO-%03d %s", i+1, long))
		c.Files = append(c.Files, fmt.Sprintf("src/file%02d.go", i))
	}
	s := c.String()
	if n := utf8.RuneCountInString(s); n > changeLineLen {
		t.Errorf("%d runes, want at most %d: %s", n, changeLineLen, s)
	}
	if !strings.Contains(s, "decided ADR-001 word") || !strings.Contains(s, "(+17 more)") {
		t.Errorf("the line does not name the first and count the rest: %s", s)
	}
	c = Change{SessionChanges: workspace.SessionChanges{TodosDone: []string{"TODO-001 Ship"}}, Popped: []string{"a Frame A"}}
	if got, want := c.String(), "finished TODO-001 Ship; popped a Frame A"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestEnd_AgainWritesNothing: a session's end run again with nothing new
// (pi's session_shutdown after Claude Code's SessionEnd, a hook retried)
// replaces no file of the workspace; an end a minute later writes the
// board and the trace, and no other file.
func TestEnd_AgainWritesNothing(t *testing.T) {
	l, ev := sampleSessionStarted(t)
	handle(t, l, ev)
	before := workspaceFiles(t, l.Wd)
	handle(t, l, ev)
	if changed := replaced(before, workspaceFiles(t, l.Wd)); len(changed) > 0 {
		t.Errorf("an end with nothing new wrote %v", changed)
	}
	now := l.Now().Add(time.Minute)
	l.Now, l.Workspace.Now = func() time.Time { return now }, func() time.Time { return now }
	before = workspaceFiles(t, l.Wd)
	handle(t, l, ev)
	want := []string{filepath.Join(".cairn", cairn.TracesDir, "s1.md"), cairn.BoardFile}
	if changed := replaced(before, workspaceFiles(t, l.Wd)); !slices.Equal(changed, want) {
		t.Errorf("an end a minute later wrote %v, want %v", changed, want)
	}
}

// sampleSessionStarted is a loop whose session s1 started on a sample
// transcript, and the event that ends it.
func sampleSessionStarted(t *testing.T) (*Loop, Event) {
	t.Helper()
	sample, err := os.ReadFile("../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	l := newLoop(t)
	path := filepath.Join(l.Wd, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04.jsonl")
	if err := os.WriteFile(path, sample, 0o644); err != nil {
		t.Fatal(err)
	}
	ev := Event{Kind: End, Harness: ClaudeCode, Session: "s1", Transcript: path, Reason: "logout"}
	handle(t, l, Event{Kind: Start, Harness: ClaudeCode, Session: "s1", Transcript: path, Source: FromNew})
	return l, ev
}

// workspaceFiles is each file of the workspace at root but the store's,
// with its size, time and inode.
func workspaceFiles(t *testing.T, root string) map[string]fs.FileInfo {
	t.Helper()
	files := map[string]fs.FileInfo{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "store.db") {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[rel] = info
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// replaced names, sorted, the files of after that are new or not the file
// before had, or were written since.
func replaced(before, after map[string]fs.FileInfo) []string {
	var names []string
	for name, a := range after {
		b, ok := before[name]
		if !ok || !os.SameFile(a, b) || !a.ModTime().Equal(b.ModTime()) || a.Size() != b.Size() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
