package claudetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/bench"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/sqlite"
)

// marker is in the success criteria of the frame the project works on, so
// it reaches the client only through the SessionStart hook.
const marker = "E2E-CRITERIA-7f3a"

// MustBuildCairn builds the cairn command into a folder it puts first on
// PATH, as "cairn install claude" expects, and returns the binary.
func MustBuildCairn(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	bin := filepath.Join(dir, "cairn")
	if err := bench.BuildCairn(bin); err != nil {
		tb.Fatal(err)
	}
	tb.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return bin
}

// mustCairn runs cairn in dir and returns its stdout.
func mustCairn(tb testing.TB, bin, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CAIRN_SESSION=", "CLAUDE_CODE_SESSION_ID=", "CAIRN_AGENT=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("cairn %v: %v\n%s%s", args, err, out, stderr.Bytes())
	}
	return string(out)
}

// requestsWith counts the Messages API requests whose body holds s.
func requestsWith(reqs []fakeapi.Request, s string) int {
	var n int
	for _, r := range reqs {
		if strings.Contains(r.Path, "/v1/messages") && !strings.Contains(r.Path, "count_tokens") && bytes.Contains(r.Body, []byte(s)) {
			n++
		}
	}
	return n
}

// TestHooks installs cairn in a scratch project and has the real client
// run in it: the SessionStart hook's context is in the request the client
// sends, the session's rounds are in the store when the run ends (Stop,
// SessionEnd), and a run after /compact gets the context again. It runs on
// the oldest supported and the newest tested release.
func TestHooks(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { testHooks(t, c, cairnBin) })
	}
}

// compactHookRecorded is the first release known to record a SessionStart
// hook's output in the transcript ("hookName":"SessionStart:compact"):
// 2.1.330 does, 2.1.197 does not; releases between were not tried.
const compactHookRecorded = "2.1.330"

func testHooks(t *testing.T, c claudetest.Client, cairnBin string) {
	bin := c.Path
	api := fakeapi.New()
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)

	out := mustCairn(t, cairnBin, proj, "install", "claude")
	if !strings.Contains(out, "hooks installed") {
		t.Fatalf("install: %s", out)
	}
	mustCairn(t, cairnBin, proj, "push", "Wire the payments", "--root", "--criteria", marker)

	first := claudetest.Run(t, bin, home, proj, api.URL, "-p", "hello from the first run")
	if first.IsError {
		t.Fatalf("first run: %+v", first)
	}
	if n := requestsWith(api.Requests(), marker); n == 0 {
		t.Fatalf("no request holds the SessionStart context (%d requests)", len(api.Requests()))
	}

	db := sqlite.NewDB(filepath.Join(proj, ".cairn", "cairn.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rounds, err := sqlite.NewRoundStore(db).FindRounds(context.Background(), cairn.RoundFilter{SessionID: first.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	var prompted bool
	for _, r := range rounds {
		prompted = prompted || strings.Contains(r.UserPreview, "hello from the first run")
		if r.Seq > 0 && r.FrameID == "" {
			t.Errorf("round %d has no frame tag", r.Seq)
		}
	}
	if !prompted {
		t.Fatalf("the first run's round is not in the store: %d rounds", len(rounds))
	}
	board, err := os.ReadFile(filepath.Join(proj, cairn.BoardFile))
	if err != nil || !strings.Contains(string(board), "ended (") {
		t.Errorf("no checkpoint on exit in board.md: %v\n%s", err, board)
	}

	// After /compact the client starts the session again (source
	// "compact"); the next request carries the context once more.
	before := len(api.Requests())
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "/compact")
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "after the compaction")
	after := api.Requests()[before:]
	if requestsWith(after, marker) == 0 {
		t.Fatalf("no request after /compact holds the context (%d requests)", len(after))
	}
	if requestsWith(after, "after the compaction") == 0 {
		t.Fatalf("the run after /compact sent no request")
	}
	// Newer releases record in the transcript which SessionStart gave the
	// context (version-specific: see compactHookRecorded).
	if !c.AtLeast(compactHookRecorded) {
		t.Logf("claude %s does not record hook output in the transcript; not checked", c.Version)
		return
	}
	paths, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", first.SessionID+".jsonl"))
	if len(paths) != 1 {
		t.Fatalf("transcript of %s: %v", first.SessionID, paths)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	var compacted bool
	for _, l := range strings.Split(string(data), "\n") {
		compacted = compacted || strings.Contains(l, `"hookName":"SessionStart:compact"`) && strings.Contains(l, marker)
	}
	if !compacted {
		t.Errorf("no SessionStart:compact hook output with the context in %s", paths[0])
	}
}

// TestMCP has the real client, with cairn's server in .mcp.json, call one
// cairn tool; the tool's result is in the next request it sends. It runs
// on the oldest supported and the newest tested release.
func TestMCP(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { testMCP(t, c.Path, cairnBin) })
	}
}

func testMCP(t *testing.T, bin, cairnBin string) {
	api := fakeapi.New(fakeapi.Turn{Match: "show the cairn state", Steps: [][]fakeapi.Block{
		{{Type: "tool_use", Name: "mcp__cairn__state", Input: map[string]any{}}},
		{{Type: "text", Text: "The state is shown."}},
	}})
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")
	mustCairn(t, cairnBin, proj, "state", "set", "--task", "MCP-TASK-91c2")

	r := claudetest.Run(t, bin, home, proj, api.URL, "-p", "show the cairn state", "--allowedTools", "mcp__cairn__state")
	if r.IsError || !strings.Contains(r.Result, "The state is shown.") {
		t.Fatalf("run: %+v", r)
	}
	var found bool
	for _, req := range api.Requests() {
		var body fakeapi.MessagesRequest
		if json.Unmarshal(req.Body, &body) != nil {
			continue
		}
		for _, m := range body.Messages {
			if m.IsToolResult() && strings.Contains(string(m.Content), "MCP-TASK-91c2") {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("no request holds the state tool's result (%d requests)", len(api.Requests()))
	}
}
