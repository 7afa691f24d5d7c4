package conformance_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/geminitest"
	"github.com/cairn-dev/cairn/internal/opencodetest"
	"github.com/cairn-dev/cairn/internal/pitest"
	"github.com/cairn-dev/cairn/opencode"
)

// TestGenerateSources rewrites testdata/: a session of three prompts, each
// answered in several steps with tool calls, as the newest Gemini CLI,
// opencode and pi write them (the samples under gemini/, opencode/ and pi/
// hold two).
// Run with CAIRN_CONFORMANCE_SAMPLES=1; the sessions are committed.
func TestGenerateSources(t *testing.T) {
	if os.Getenv("CAIRN_CONFORMANCE_SAMPLES") == "" {
		t.Skip("set CAIRN_CONFORMANCE_SAMPLES=1 to rewrite internal/conformance/testdata")
	}
	t.Run("gemini", func(t *testing.T) {
		c := geminitest.NewestClient(t)
		api := fakeapi.NewGemini()
		defer api.Close()
		h := geminitest.NewHome(t, api.URL)
		greeting := filepath.Join(h.Cwd, "greeting.txt")
		api.Turns = []fakeapi.GeminiTurn{
			{Match: "inspect the project", Steps: [][]fakeapi.GeminiPart{
				{{Text: "Listing first.", Thought: true}, {Name: "run_shell_command", Args: map[string]any{"command": "ls -1 && echo LISTED-OK"}}},
				{{Name: "read_file", Args: map[string]any{"file_path": greeting}}},
				{{Text: "INSPECTED: greeting.txt says hello."}},
			}},
			{Match: "change the greeting", Steps: [][]fakeapi.GeminiPart{
				{{Text: "Changing it now."}, {Name: "replace", Args: map[string]any{"file_path": greeting, "old_string": "hello", "new_string": "goodbye", "instruction": "change the greeting"}}},
				{{Name: "run_shell_command", Args: map[string]any{"command": "cat greeting.txt && echo CHANGED-OK"}}},
				{{Text: "CHANGED: greeting.txt says goodbye."}},
			}},
			{Match: "write it down", Steps: [][]fakeapi.GeminiPart{
				{{Name: "write_file", Args: map[string]any{"file_path": filepath.Join(h.Cwd, "notes.md"), "content": "# Notes\ngoodbye\n"}}},
				{{Name: "run_shell_command", Args: map[string]any{"command": "wc -l notes.md"}}},
				{{Text: "NOTED: notes.md holds two lines."}},
			}},
		}
		if err := os.WriteFile(greeting, []byte("hello\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		h.Run(t, c.Bin, "Please inspect the project.")
		h.Run(t, c.Bin, "Now change the greeting.", "--resume", "latest")
		h.Run(t, c.Bin, "Finally write it down in notes.md.", "--resume", "latest")
		// The file of the last run: a resume in another minute writes the
		// session again under that minute's name.
		var data []byte
		for _, s := range h.Sessions(t) {
			b, err := os.ReadFile(s)
			if err != nil {
				t.Fatal(err)
			}
			if os.Getenv("CAIRN_DEBUG_DIR") != "" {
				_ = os.WriteFile(filepath.Join(os.Getenv("CAIRN_DEBUG_DIR"), filepath.Base(s)), b, 0o644)
			}
			if len(b) > len(data) {
				data = b
			}
		}
		for _, want := range []string{"inspect the project", "change the greeting", "write it down", "NOTED: notes.md"} {
			if !strings.Contains(string(data), want) {
				t.Fatalf("the session holds no %q", want)
			}
		}
		out := filepath.Join("testdata", "gemini-"+geminitest.Newest+".jsonl")
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("opencode", func(t *testing.T) {
		c := opencodetest.Clients(t)[0]
		api := fakeapi.NewChat(
			fakeapi.ResponsesTurn{Match: "make the notes file", Steps: [][]fakeapi.Item{
				{{Type: "message", Text: "I will write the notes."}, {Type: "function_call", Name: "write",
					Arguments: map[string]any{"filePath": "notes.txt", "content": "alpha\nbeta\n"}}},
				{{Type: "function_call", Name: "bash", Arguments: map[string]any{"command": "wc -l notes.txt", "description": "Counts lines"}}},
				{{Type: "message", Text: "WROTE-NOTES: two lines."}},
			}},
			fakeapi.ResponsesTurn{Match: "fix the notes", Steps: [][]fakeapi.Item{
				{{Type: "function_call", Name: "read", Arguments: map[string]any{"filePath": "notes.txt"}}},
				{{Type: "function_call", Name: "edit", Arguments: map[string]any{"filePath": "notes.txt", "oldString": "beta", "newString": "gamma"}}},
				{{Type: "message", Text: "FIXED-NOTES: beta is gamma."}},
			}},
			fakeapi.ResponsesTurn{Match: "count the notes", Steps: [][]fakeapi.Item{
				{{Type: "message", Text: "Counting."}, {Type: "function_call", Name: "bash", Arguments: map[string]any{"command": "grep -c . notes.txt", "description": "Counts notes"}}},
				{{Type: "function_call", Name: "read", Arguments: map[string]any{"filePath": "notes.txt"}}},
				{{Type: "message", Text: "COUNTED-NOTES: alpha and gamma."}},
			}},
		)
		defer api.Close()
		h := opencodetest.NewHome(t, api.URL)
		h.Run(t, c.Bin, "run", "make the notes file")
		ctx := context.Background()
		logs, err := opencode.ReadStore(ctx, h.DataDir())
		if err != nil || len(logs) != 1 {
			t.Fatalf("read store: %v, %d sessions", err, len(logs))
		}
		id := logs[0].ID
		h.Run(t, c.Bin, "run", "--session", id, "fix the notes")
		h.Run(t, c.Bin, "run", "--session", id, "count the notes")
		dir := t.TempDir()
		if _, err := opencode.Mirror(ctx, h.DataDir(), dir); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, id+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join("testdata", "opencode-"+opencodetest.Newest+".jsonl")
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("pi", func(t *testing.T) {
		c := pitest.NewestClient(t)
		api := fakeapi.New(
			fakeapi.Turn{Match: "make the list", Steps: [][]fakeapi.Block{
				{{Type: "text", Text: "Writing the list."}, {Type: "tool_use", Name: "write", Input: map[string]any{"path": "list.txt", "content": "one\ntwo\n"}}},
				{{Type: "tool_use", Name: "bash", Input: map[string]any{"command": "wc -l list.txt && echo LISTED-OK"}}},
				{{Type: "text", Text: "MADE-LIST: two lines."}},
			}},
			fakeapi.Turn{Match: "change the list", Steps: [][]fakeapi.Block{
				{{Type: "tool_use", Name: "read", Input: map[string]any{"path": "list.txt"}}},
				{{Type: "tool_use", Name: "edit", Input: map[string]any{"path": "list.txt", "edits": []any{map[string]any{"oldText": "two", "newText": "three"}}}}},
				{{Type: "text", Text: "CHANGED-LIST: two is three."}},
			}},
			fakeapi.Turn{Match: "count the list", Steps: [][]fakeapi.Block{
				{{Type: "text", Text: "Counting."}, {Type: "tool_use", Name: "bash", Input: map[string]any{"command": "grep -c . list.txt"}}},
				{{Type: "tool_use", Name: "read", Input: map[string]any{"path": "list.txt"}}},
				{{Type: "text", Text: "COUNTED-LIST: one and three."}},
			}},
		)
		defer api.Close()
		h := pitest.NewHome(t, api.URL)
		h.Run(t, c.Bin, "Please make the list.")
		files := h.Sessions(t)
		if len(files) != 1 {
			t.Fatalf("sessions: %v", files)
		}
		h.Run(t, c.Bin, "Now change the list.", "--session", files[0])
		h.Run(t, c.Bin, "Finally count the list.", "--session", files[0])
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"MADE-LIST", "CHANGED-LIST", "COUNTED-LIST: one and three."} {
			if !strings.Contains(string(data), want) {
				t.Fatalf("the session holds no %q", want)
			}
		}
		if err := os.WriteFile(filepath.Join("testdata", "pi-"+pitest.Newest+".jsonl"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	})
}
