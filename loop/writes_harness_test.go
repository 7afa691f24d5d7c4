package loop

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestEnd_PiSessionWrites: the line a pi session's end writes names the
// file it wrote with pi's own write and edit (their path field), read from
// the store by the session's harness. The session is a real pi 0.73.1
// session, written after cairn's start saw its header.
func TestEnd_PiSessionWrites(t *testing.T) {
	data, err := os.ReadFile("../internal/conformance/testdata/pi-0.73.1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	const session = "01a22197-0cf7-71ea-8116-d42235ab3124"
	l := newLoop(t)
	l.Workspace.Session = session
	path := filepath.Join(l.Wd, "2026-11-28T09-57-57-112Z_"+session+".jsonl")
	if err := os.WriteFile(path, bytes.Join(lines[:3], nil), 0o644); err != nil { // the header, before any message
		t.Fatal(err)
	}
	handle(t, l, FromPi(PiHook{Event: "start", Reason: "startup", Session: session, File: path, Cwd: l.Wd}))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	handle(t, l, FromPi(PiHook{Event: "end", Reason: "quit", Session: session, File: path, Cwd: l.Wd}))
	board, err := os.ReadFile(filepath.Join(l.Wd, cairn.BoardFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(board), "wrote list.txt") {
		t.Errorf("the end's line does not name list.txt, which pi's write and edit changed:\n%s", board)
	}
}
