package claudetest_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"cairn/internal/claudetest"
	"cairn/internal/fakeapi"
)

// TestPreCompactExhaustion has the real client run out of context (the stand-in API
// reports 995,000 input tokens: the clients' default models have a
// 1,000,000-token window) and compact by itself: cairn's PreCompact
// hook prepares a revived session, the board and trace record it, and the
// request after the compaction names the session to resume.
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
