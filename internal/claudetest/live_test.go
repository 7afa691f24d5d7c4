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

// TestSessionEndChanges has the agent record a decision and a todo with
// cairn's own commands (Bash calls the stand-in API scripts); when the
// session ends, the board's automatic line and cairn recover name both.
func TestSessionEndChanges(t *testing.T) {
	for name, bin := range claudetest.Versions(t) {
		t.Run(name, func(t *testing.T) { sessionEndChanges(t, bin) })
	}
}

func sessionEndChanges(t *testing.T, bin string) {
	cairnBin := MustBuildCairn(t)
	bash := func(command string) fakeapi.Block {
		return fakeapi.Block{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": command, "description": "Record it"}}
	}
	api := fakeapi.New(fakeapi.Turn{Match: "record what we settled", Steps: [][]fakeapi.Block{
		{bash(`cairn decide "Tokens in cookies" --decision "httpOnly cookies, not localStorage"`)},
		{bash(`cairn todo add "Rotate the session keys"`)},
		{{Type: "text", Text: "Recorded."}},
	}})
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")

	r := claudetest.Run(t, bin, home, proj, api.URL, "-p", "record what we settled", "--allowedTools", "Bash")
	if r.IsError {
		t.Fatalf("run: %+v", r)
	}
	decisions, _ := os.ReadFile(filepath.Join(proj, "decisions.md"))
	if !strings.Contains(string(decisions), "Tokens in cookies") {
		t.Fatalf("the agent's cairn decide did not run:\n%s", decisions)
	}
	board, err := os.ReadFile(filepath.Join(proj, "board.md"))
	if err != nil {
		t.Fatal(err)
	}
	const want = "changed: decided ADR-001 Tokens in cookies; todos added TODO-001 Rotate the session keys"
	if !strings.Contains(string(board), "Session "+r.SessionID[:8]+" ended") || !strings.Contains(string(board), want) {
		t.Errorf("the board's line does not say what the session changed (%q):\n%s", want, board)
	}
	out := mustCairn(t, cairnBin, proj, "recover", r.SessionID[:8])
	if !strings.Contains(out, "what it changed: decided ADR-001 Tokens in cookies; todos added TODO-001 Rotate the session keys") {
		t.Errorf("recover does not say what the session changed:\n%s", out)
	}
}

// TestPressureCollapsesFrames works in frame A over several rounds (a
// detail planted there), pops it, works in frame B; then the context
// crosses the pressure mark, and the next request's note names the one
// command that resumes a revived session with A collapsed to its results.
// Resumed, that session carries A's results and not the detail.
func TestPressureCollapsesFrames(t *testing.T) {
	for name, bin := range claudetest.Versions(t) {
		t.Run(name, func(t *testing.T) { pressureCollapsesFrames(t, bin) })
	}
}

func pressureCollapsesFrames(t *testing.T, bin string) {
	cairnBin := MustBuildCairn(t)
	bulk := strings.Repeat("Read the module and noted its shape. ", 60)
	api := fakeapi.New(
		fakeapi.Turn{Match: "frame A, part one", Steps: [][]fakeapi.Block{{{Type: "text", Text: "Noted: the key is " + planted + ". " + bulk}}}},
		fakeapi.Turn{Match: "frame A, part two", Steps: [][]fakeapi.Block{{{Type: "text", Text: "More of A. " + bulk}}}},
		fakeapi.Turn{Match: "work in frame B", Steps: [][]fakeapi.Block{{{Type: "text", Text: "In B: " + bVerbatim + "."}}}},
	)
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude", "--pressure", "50")
	f, err := os.OpenFile(filepath.Join(proj, ".cairn", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("context_window = 1000\n") // a reply of 600 input tokens crosses 50 %
	f.Close()
	mustCairn(t, cairnBin, proj, "push", "Frame A", "--root", "--id", "a", "--criteria", "the key is found")

	api.SetInputTokens(10)
	first := claudetest.Run(t, bin, home, proj, api.URL, "-p", "frame A, part one")
	if first.IsError {
		t.Fatalf("run in A: %+v", first)
	}
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "frame A, part two")
	mustCairn(t, cairnBin, proj, "pop", "--results", aResults+": the key is known", "--compact", "key found")
	mustCairn(t, cairnBin, proj, "push", "Frame B", "--root", "--id", "b", "--criteria", "B is done")
	api.SetInputTokens(600)
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "work in frame B")
	if n := requestsWith(api.Requests(), "your context is"); n != 0 {
		t.Fatalf("a note before the crossing: %d requests", n)
	}
	api.SetInputTokens(10)
	before := len(api.Requests())
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "after the crossing")

	var note string
	for _, r := range api.Requests()[before:] {
		if b := string(r.Body); strings.Contains(b, "after the crossing") && strings.Contains(b, "Finished frames (a) hold") {
			i := strings.Index(b, "your context is")
			note = b[i:min(len(b), i+900)]
		}
	}
	if note == "" {
		t.Fatal("the request after the crossing holds no note naming the collapse")
	}
	id := regexp.MustCompile(`Command: [^\\]*claude --resume ([0-9a-f-]{36})`).FindStringSubmatch(note)
	if id == nil {
		t.Fatalf("the note names no command that resumes the lighter session:\n%s", note)
	}

	before = len(api.Requests())
	if r := claudetest.Run(t, bin, home, proj, api.URL, "--resume", id[1], "-p", "in the lighter session"); r.IsError {
		t.Fatalf("resume: %+v", r)
	}
	var body string
	for _, r := range api.Requests()[before:] {
		if strings.Contains(r.Path, "/v1/messages") && strings.Contains(string(r.Body), "in the lighter session") {
			body = string(r.Body)
		}
	}
	if body == "" {
		t.Fatal("no request after the resume holds the new prompt")
	}
	if strings.Contains(body, planted) {
		t.Errorf("the detail planted in finished frame A is still in the lighter session")
	}
	for _, want := range []string{aResults, "work in frame B", bVerbatim} {
		if !strings.Contains(body, want) {
			t.Errorf("the lighter session lacks %q", want)
		}
	}
}
