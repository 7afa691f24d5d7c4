package claudetest_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// perResume is what a resume may add to cairn's context in a request: a
// line saying nothing changed, or the lines that did (the last session's
// end on the board).
const perResume = 600

// TestSaidOnce resumes one session 20 times with cairn's hooks installed:
// the last request carries one copy of cairn's SessionStart context (its
// frame's criteria once), and all of cairn's context in it stays under
// one full context (the client's 10,000 characters) plus perResume a
// resume, although every run ended the session and checkpointed it.
func TestSaidOnce(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { saidOnce(t, c, cairnBin) })
	}
}

func saidOnce(t *testing.T, c claudetest.Client, cairnBin string) {
	api := fakeapi.New()
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")
	mustCairn(t, cairnBin, proj, "push", "Wire the payments", "--root", "--criteria", marker)
	first := claudetest.Run(t, c.Path, home, proj, api.URL, "-p", "run 0")
	const resumes = 20
	for i := 1; i <= resumes; i++ {
		claudetest.Run(t, c.Path, home, proj, api.URL, "--resume", first.SessionID, "-p", fmt.Sprintf("run %d", i))
	}
	last := api.Conversation()
	if last == nil {
		t.Fatal("no conversation request")
	}
	var req fakeapi.MessagesRequest
	if err := json.Unmarshal(last.Body, &req); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(last.Body), fmt.Sprintf("run %d", resumes)) {
		t.Fatalf("the last request is not the last run's")
	}
	var copies, size, pointers int
	for _, m := range req.Messages {
		for _, text := range m.Texts() {
			if strings.Contains(text, marker) {
				copies += strings.Count(text, marker)
			}
			for _, part := range strings.Split(text, "<system-reminder>") {
				if strings.Contains(part, marker) || strings.Contains(part, "cairn: the context given") {
					size += len(part)
				}
			}
			pointers += strings.Count(text, "cairn: the context given")
		}
	}
	t.Logf("%s: after %d resumes, the last request (%d bytes) holds %d copies of cairn's context, %d resume notes, %d characters of cairn's in all",
		c.Version, resumes, len(last.Body), copies, pointers, size)
	if copies != 1 {
		t.Errorf("%d copies of cairn's context in the last request, want 1", copies)
	}
	if limit := 10_000 + resumes*perResume; size > limit {
		t.Errorf("cairn's context in the last request: %d characters, over %d", size, limit)
	}
}
