package claudetest_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestQuietResume (issue #42, 2g): a session resumed when nothing changed
// but its own ends (the checkpoint each run's SessionEnd writes) is told
// nothing by cairn's SessionStart; resumed after a change someone else
// made (a todo added), it is told that change alone.
func TestQuietResume(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { quietResume(t, c, cairnBin) })
	}
}

func quietResume(t *testing.T, c claudetest.Client, cairnBin string) {
	api := fakeapi.New()
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")
	first := claudetest.Run(t, c.Path, home, proj, api.URL, "-p", "run 0")
	for _, p := range []string{"run 1", "run 2"} {
		claudetest.Run(t, c.Path, home, proj, api.URL, "--resume", first.SessionID, "-p", p)
	}
	if n := notesIn(t, api.Conversation()); n != 0 {
		t.Errorf("after two resumes with nothing changed, the request holds %d resume notes, want none", n)
	}
	mustCairn(t, cairnBin, proj, "todo", "add", "Rotate the session keys")
	claudetest.Run(t, c.Path, home, proj, api.URL, "--resume", first.SessionID, "-p", "run 3")
	last := api.Conversation()
	if n := notesIn(t, last); n != 1 || !strings.Contains(string(last.Body), "Rotate the session keys") {
		t.Errorf("after a todo was added, the request holds %d resume notes (want 1, naming the todo)", n)
	}
	body := string(last.Body)
	if i := strings.LastIndex(body, "cairn: the context given"); i >= 0 {
		note := body[i:]
		if j := strings.Index(note, "</system-reminder>"); j >= 0 {
			note = note[:j]
		}
		if strings.Contains(note, "ended (other) after") {
			t.Errorf("the note re-tells the session its own end:\n%s", note)
		}
	}
}

// notesIn counts cairn's resume notes in a request.
func notesIn(t *testing.T, r *fakeapi.Request) int {
	t.Helper()
	if r == nil {
		t.Fatal("no conversation request")
	}
	return strings.Count(string(r.Body), "cairn: the context given")
}
