package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestCurrent_LastMove: where a session is, read from its trace's last
// move alone, is where the whole trace says it went, across days, blank
// lines and quotes; a last line that is no move is EINVALID, naming it.
func TestCurrent_LastMove(t *testing.T) {
	w := MustInit(t)
	w.Session = "s1"
	if got, err := w.Current("here"); err != nil || got != "here" {
		t.Fatalf("no trace: got %q, %v; want here", got, err)
	}
	for _, dir := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(w.Root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i, to := range []string{"a", "b", "a", "b"} {
		from := "."
		if i > 0 {
			from = []string{"a", "b"}[(i+1)%2]
		}
		if err := w.AppendMove("s1", &cairn.Move{From: from, To: to, Trigger: "look"}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(w.Root, ".cairn", cairn.TracesDir, "s1.md")
	writeFile(t, path, string(readFile(t, path))+"\n> a note\n\n")
	trace, err := w.FindTrace("s1")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := w.Current("here"); err != nil || got != trace.Current() || got != "b" {
		t.Errorf("got %q, %v; want b, as the whole trace says (%q)", got, err, trace.Current())
	}
	writeFile(t, path, string(readFile(t, path))+"not a move\n")
	if _, err := w.Current("here"); cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), "s1.md:") {
		t.Errorf("a last line that is no move: got %v, want EINVALID naming the line", err)
	}
}
