package pitest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/pitest"
)

// startMarker is a line of the workspace's PROJECT.md, which cairn's start
// context holds.
const startMarker = "Project marker ZEPHYR-PI-7"

// conversations returns the requests that offer tools (the conversation's),
// each checked with fakeapi.CheckRequest.
func conversations(t *testing.T, reqs []fakeapi.Request) []fakeapi.MessagesRequest {
	t.Helper()
	var out []fakeapi.MessagesRequest
	for i, r := range reqs {
		var req fakeapi.MessagesRequest
		if json.Unmarshal(r.Body, &req) != nil || len(req.Tools) == 0 {
			continue
		}
		for _, p := range fakeapi.CheckRequest(r.Body, 0) {
			t.Errorf("request %d: %s", i, p)
		}
		out = append(out, req)
	}
	return out
}

// holding returns the indexes of the request's messages whose texts hold s.
func holding(req fakeapi.MessagesRequest, s string) []int {
	var at []int
	for i, m := range req.Messages {
		if strings.Contains(strings.Join(m.Texts(), "\n"), s) {
			at = append(at, i)
		}
	}
	return at
}

// TestExtensionLoop: with cairn's extension, pi 0.73.1 sends cairn's start
// context once, in the first prompt's own user message after the prompt's
// words (one user message, not two in a row), and never again on a resume
// where nothing changed; a prompt after a reply past 70 % of pi's
// compaction point (window less reserveTokens, from the model and
// settings.json) carries cairn's pressure note in that prompt's message;
// the run's end (session_shutdown) writes the session's end line on the
// workspace's board, one for the session, after its 3 rounds.
func TestExtensionLoop(t *testing.T) {
	c := pitest.NewestClient(t)
	bin := buildCairn(t)
	api := fakeapi.New(fakeapi.Turn{Match: "look at the work", Steps: [][]fakeapi.Block{
		{{Type: "tool_use", Name: "bash", Input: map[string]any{"command": "echo LOOKED"}}},
		{{Type: "text", Text: "Looked."}},
	}})
	defer api.Close()
	h := pitest.NewHome(t, api.URL)
	smallWindow(t, h, api.URL)
	cairnIn(t, h, bin, nil, "install", "pi", "--command", bin)
	project := filepath.Join(h.Cwd, "PROJECT.md")
	data, err := os.ReadFile(project)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(project, append(data, "\n"+startMarker+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}

	h.Run(t, c.Bin, "look at the work")
	files := h.Sessions(t)
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	reqs := conversations(t, api.Requests())
	for i, req := range reqs {
		at := holding(req, startMarker)
		if len(at) != 1 || at[0] != 0 || req.Messages[0].Role != "user" {
			t.Errorf("request %d: start context in messages %v, want the first (user) only", i, at)
			continue
		}
		first := strings.Join(req.Messages[0].Texts(), "\n")
		if p, m := strings.Index(first, "look at the work"), strings.Index(first, startMarker); p < 0 || m < p {
			t.Errorf("request %d: the first message is not the prompt then cairn's context:\n%.400s", i, first)
		}
	}

	api.SetInputTokens(12_000)
	h.Run(t, c.Bin, "look at the work again", "--session", files[0])
	api.SetInputTokens(100)
	h.Run(t, c.Bin, "now the pressure", "--session", files[0])
	reqs = conversations(t, api.Requests())
	last := reqs[len(reqs)-1]
	if at := holding(last, startMarker); len(at) != 1 || at[0] != 0 {
		t.Errorf("after two resumes the start context is in messages %v, want the first only", at)
	}
	notes := holding(last, "of the way to where pi compacts it")
	if len(notes) != 1 || notes[0] != len(last.Messages)-1 {
		t.Fatalf("pressure note in messages %v of %d, want the last prompt's", notes, len(last.Messages))
	}
	note := strings.Join(last.Messages[notes[0]].Texts(), "\n")
	if !strings.Contains(note, "now the pressure") || !strings.Contains(note, "of 16,000 tokens; window 20,000; past the 70% mark") {
		t.Errorf("pressure note:\n%s", note)
	}
	if at := holding(reqs[len(reqs)-2], "of the way to where pi compacts it"); len(at) != 0 {
		t.Errorf("a note before the crossing, in messages %v", at)
	}

	board, err := os.ReadFile(filepath.Join(h.Cwd, "board.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(board), "ended (quit)"); n != 1 || !strings.Contains(string(board), `after 3 rounds; last: "now the pressure"`) {
		t.Errorf("board: %d end lines, want the last run's, after 3 rounds:\n%s", n, board)
	}
}

// TestInstallPiUser: install --user writes cairn's extension into pi's own
// folder (~/.pi/agent/extensions), which pi 0.73.1 loads in any project:
// in a cairn workspace with no project extension, the first request holds
// cairn's start context; uninstall --user removes the file.
func TestInstallPiUser(t *testing.T) {
	c := pitest.NewestClient(t)
	bin := buildCairn(t)
	api := fakeapi.New(fakeapi.Turn{Match: "look at the work", Steps: [][]fakeapi.Block{{{Type: "text", Text: "Looked."}}}})
	defer api.Close()
	h := pitest.NewHome(t, api.URL)
	cairnIn(t, h, bin, nil, "init")
	if err := os.WriteFile(filepath.Join(h.Cwd, "PROJECT.md"), []byte("# work\n\n"+startMarker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cairnIn(t, h, bin, nil, "install", "pi", "--user", "--command", bin)
	ext := filepath.Join(h.Agent(), "extensions", "cairn.ts")
	if _, err := os.Stat(ext); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.Cwd, ".pi", "extensions", "cairn.ts")); !os.IsNotExist(err) {
		t.Errorf("a project extension too: %v", err)
	}
	h.Run(t, c.Bin, "look at the work")
	reqs := conversations(t, api.Requests())
	if len(reqs) == 0 || len(holding(reqs[0], startMarker)) != 1 {
		t.Errorf("the user extension gave no start context")
	}
	cairnIn(t, h, bin, nil, "uninstall", "pi", "--user")
	if _, err := os.Stat(ext); !os.IsNotExist(err) {
		t.Errorf("cairn.ts left: %v", err)
	}
}
