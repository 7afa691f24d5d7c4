package geminitest_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/geminitest"
)

var update = flag.Bool("update", false, "write new sample sessions made by the real clients into gemini/testdata")

// Script is the conversation the samples hold: a first prompt that runs a
// shell command and reads a file, a second, resumed, that edits and writes
// files.
func Script(cwd string) []fakeapi.GeminiTurn {
	return []fakeapi.GeminiTurn{
		{Match: "inspect the project", Steps: [][]fakeapi.GeminiPart{
			{{Text: "I should list the files first.", Thought: true}, {Name: "run_shell_command", Args: map[string]any{"command": "ls -1 && echo sample-shell-ok"}}},
			{{Name: "read_file", Args: map[string]any{"file_path": filepath.Join(cwd, "greeting.txt")}}},
			{{Text: "The project holds greeting.txt, which says hello."}},
		}},
		{Match: "change the greeting", Steps: [][]fakeapi.GeminiPart{
			{{Name: "replace", Args: map[string]any{"file_path": filepath.Join(cwd, "greeting.txt"), "old_string": "hello", "new_string": "goodbye", "instruction": "change the greeting"}}},
			{{Name: "write_file", Args: map[string]any{"file_path": filepath.Join(cwd, "notes.md"), "content": "# Notes\nThe greeting is now goodbye.\n"}}},
			{{Text: "Done: greeting.txt says goodbye and notes.md records it."}},
		}},
	}
}

// TestMakeSamples runs the script with each supported release and, with
// -update, copies the sessions it wrote into gemini/testdata/VERSION/.
func TestMakeSamples(t *testing.T) {
	for _, c := range geminitest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			api := fakeapi.NewGemini()
			defer api.Close()
			h := geminitest.NewHome(t, api.URL)
			api.Turns = Script(h.Cwd)
			if err := os.WriteFile(filepath.Join(h.Cwd, "greeting.txt"), []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			h.Run(t, c.Bin, "Please inspect the project.")
			h.Run(t, c.Bin, "Now change the greeting.", "--resume", "latest")
			got, err := os.ReadFile(filepath.Join(h.Cwd, "greeting.txt"))
			if err != nil || string(got) != "goodbye\n" {
				t.Fatalf("greeting.txt after the run: %q, %v", got, err)
			}
			sessions := h.Sessions(t)
			if len(sessions) == 0 {
				t.Fatal("the client wrote no session")
			}
			if !*update {
				return
			}
			dir := filepath.Join("..", "..", "gemini", "testdata", c.Version)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, s := range sessions {
				data, err := os.ReadFile(s)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(s)), data, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s (%d bytes)", filepath.Join(dir, filepath.Base(s)), len(data))
			}
		})
	}
}
