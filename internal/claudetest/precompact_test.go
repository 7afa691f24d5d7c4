package claudetest_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestPreCompactExhaustion has the real client run out of context (the stand-in API
// reports 995,000 input tokens: the clients' default models have a
// 1,000,000-token window) and compact by itself: cairn's PreCompact
// hook prepares a revived session, the board and trace record it, and the
// request after the compaction names the session to resume. The pressure
// note of that prompt and the compaction are one moment (issue #42, 2d):
// the requests after it name one session to resume, and no `cairn
// revive` to run besides.
func TestPreCompactExhaustion(t *testing.T) {
	for name, bin := range claudetest.Versions(t) {
		t.Run(name, func(t *testing.T) { preCompactExhaustion(t, name, bin) })
	}
}

func preCompactExhaustion(t *testing.T, name, bin string) {
	cairnBin := MustBuildCairn(t)
	api := fakeapi.New()
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")

	first := claudetest.Run(t, bin, home, proj, api.URL, "-p", "the first prompt")
	api.SetInputTokens(995_000)
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "the second prompt")
	api.SetInputTokens(100)
	before := len(api.Requests())
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "the third prompt")

	data, err := os.ReadFile(claudetestTranscript(t, home, first.SessionID))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"trigger":"auto"`) {
		// Seen: 2.1.330 compacts before the third prompt; 2.1.197 run
		// with -p does not compact by itself at all.
		if name == "oldest" {
			t.Skip("this client did not compact by itself in -p mode: nothing to check")
		}
		t.Fatal("the client did not compact by itself")
	}
	board, _ := os.ReadFile(filepath.Join(proj, "board.md"))
	trace, _ := os.ReadFile(filepath.Join(proj, ".cairn", "traces", first.SessionID+".md"))
	if !strings.Contains(string(board), "Context exhausted") || !strings.Contains(string(trace), "exhaustion (auto-compact)") {
		t.Fatalf("no exhaustion recorded; board:\n%s\ntrace:\n%s", board, trace)
	}
	id := regexp.MustCompile(`claude --resume ([0-9a-f-]{36})`).FindStringSubmatch(string(board))
	if id == nil {
		t.Fatalf("the board names no revived session:\n%s", board)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude", "projects", filepath.Base(filepath.Dir(claudetestTranscript(t, home, first.SessionID))), id[1]+".jsonl")); err != nil {
		t.Errorf("the revived session is not beside the transcript: %v", err)
	}
	var named bool
	for _, r := range api.Requests()[before:] {
		named = named || strings.Contains(string(r.Body), "cairn prepared a revived session within budget") && strings.Contains(string(r.Body), id[1])
	}
	if !named {
		t.Errorf("no request after the compaction names the revived session")
	}
	oneCommand(t, api.Requests()[before:], "the third prompt")
}

// oneCommand checks that the requests of a prompt, after a pressure
// crossing and a compaction on it, hold the pressure note and name one
// session to resume, and no cairn revive besides.
func oneCommand(t *testing.T, reqs []fakeapi.Request, prompt string) {
	t.Helper()
	resume := regexp.MustCompile(`claude --resume ([0-9a-f-]{36})`)
	ids := map[string]bool{}
	var told bool
	for _, r := range reqs {
		body := string(r.Body)
		if !strings.Contains(r.Path, "/v1/messages") || !strings.Contains(body, prompt) {
			continue
		}
		for _, m := range resume.FindAllStringSubmatch(body, -1) {
			ids[m[1]] = true
		}
		if strings.Contains(body, "Command: cairn revive ") {
			t.Errorf("a request tells the agent to run cairn revive besides the revived session:\n%s", excerpt(body, "Command: cairn revive"))
		}
		told = told || strings.Contains(body, "your context is")
	}
	if !told {
		t.Error("no request after the crossing holds the pressure note")
	}
	if len(ids) != 1 {
		t.Errorf("the requests after the compaction name %d sessions to resume, want 1: %v", len(ids), ids)
	}
}

// excerpt is body around the first s.
func excerpt(body, s string) string {
	i := strings.Index(body, s)
	if i < 0 {
		return ""
	}
	return body[max(0, i-600):min(len(body), i+400)]
}

// claudetestTranscript returns the path of a session's transcript under
// home.
func claudetestTranscript(t *testing.T, home, session string) string {
	paths, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", session+".jsonl"))
	if len(paths) != 1 {
		t.Fatalf("transcript of %s: %v", session, paths)
	}
	return paths[0]
}
