package pitest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/pitest"
)

// Format2 is a release that writes session format 2 (entries with ids,
// before 0.35 renamed hookMessage to custom): the generator's only, since
// the tests read its committed sample.
const Format2 = "0.32.3"

// script is what the stand-in answers the sample's prompts with: a shell
// call, a write, a read on a branch, a call on a fork.
func script() []fakeapi.Turn {
	return []fakeapi.Turn{
		{Match: "list the files", Steps: [][]fakeapi.Block{
			{{Type: "text", Text: "Listing them."}, {Type: "tool_use", Name: "bash", Input: map[string]any{"command": "echo alpha > a.txt && ls"}}},
			{{Type: "text", Text: "There is a.txt."}},
		}},
		{Match: "write the notes", Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "write", Input: map[string]any{"path": "notes.txt", "content": "first notes\n"}}},
			{{Type: "text", Text: "Wrote notes.txt."}},
		}},
		{Match: "another way", Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "read", Input: map[string]any{"path": "a.txt"}}},
			{{Type: "text", Text: "a.txt holds alpha."}},
		}},
		{Match: "on the fork", Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "bash", Input: map[string]any{"command": "echo forked"}}},
			{{Type: "text", Text: "Forked."}},
		}},
	}
}

// TestGenerateSamples rewrites pi/testdata/<release>/: the session files
// each release writes for the script, made by the real pi: two prompts
// (a shell call, then a write) and, where the format has a tree (2 and
// later), a branch made as /tree makes one (SessionManager.branchWithSummary
// from the first prompt's answer, then a prompt on it) and, where the CLI
// has --fork, a fork. Run with CAIRN_PI_SAMPLES=1; the samples are committed.
func TestGenerateSamples(t *testing.T) {
	if os.Getenv("CAIRN_PI_SAMPLES") == "" {
		t.Skip("set CAIRN_PI_SAMPLES=1 to rewrite pi/testdata")
	}
	clients := pitest.Clients(t)
	clients = append(clients, pitest.Client{Name: "format2", Version: Format2, Bin: pitest.Binary(Format2)})
	for _, c := range clients {
		t.Run(c.Name, func(t *testing.T) {
			api := fakeapi.New(script()...)
			defer api.Close()
			h := pitest.NewHome(t, api.URL)
			h.Run(t, c.Bin, "list the files")
			files := h.Sessions(t)
			if len(files) != 1 {
				t.Fatalf("sessions after one prompt: %v", files)
			}
			path := files[0]
			h.Run(t, c.Bin, "write the notes", "--session", path)
			if c.Name != "oldest" {
				at := firstAnswer(t, path)
				h.Node(t, fmt.Sprintf(`import { SessionManager } from %q;
const sm = SessionManager.open(%q);
sm.branchWithSummary(%q, "Tried writing notes; going back to try another way.");`,
					filepath.Join(c.Package(), "dist", "core", "session-manager.js"), path, at))
				h.Run(t, c.Bin, "try another way", "--session", path)
			}
			if c.Name == "newest" {
				h.Run(t, c.Bin, "go on on the fork", "--fork", path)
			}
			out := filepath.Join("..", "..", "pi", "testdata", c.Version)
			if err := os.RemoveAll(out); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range h.Sessions(t) {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				b = bytes.ReplaceAll(b, []byte(h.Root), []byte("/home/user"))
				if err := os.WriteFile(filepath.Join(out, filepath.Base(f)), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// firstAnswer returns the id of the first prompt's last reply: the entry a
// branch goes back to.
func firstAnswer(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	id, users := "", 0
	for _, line := range bytes.Split(b, []byte("\n")) {
		var e struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Message struct {
				Role string `json:"role"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &e) != nil || e.Type != "message" {
			continue
		}
		if e.Message.Role == "user" {
			users++
		}
		if users == 1 && e.Message.Role == "assistant" {
			id = e.ID
		}
	}
	if id == "" {
		t.Fatalf("%s: no reply to the first prompt", path)
	}
	return id
}
