package claudetest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// A longRun scripts one autonomous run of the fake API, one assistant
// reply per step, against a scratch project at root: tool calls (Write,
// Read, Edit, Bash, TodoWrite; several in a step when given together),
// with the text or thinking said before them.
type longRun struct {
	root  string
	steps [][]fakeapi.Block
	lead  []fakeapi.Block // what the next step says before its calls
}

// say makes the next step start with text.
func (r *longRun) say(format string, a ...any) *longRun {
	r.lead = append(r.lead, fakeapi.Block{Type: "text", Text: fmt.Sprintf(format, a...)})
	return r
}

// think makes the next step start with thinking.
func (r *longRun) think(format string, a ...any) *longRun {
	r.lead = append(r.lead, fakeapi.Block{Type: "thinking", Thinking: fmt.Sprintf(format, a...)})
	return r
}

// do adds one step: what was said, then the calls.
func (r *longRun) do(calls ...fakeapi.Block) *longRun {
	r.steps = append(r.steps, append(r.lead, calls...))
	r.lead = nil
	return r
}

// answer ends the run with a text reply and returns its steps.
func (r *longRun) answer(format string, a ...any) [][]fakeapi.Block {
	r.say(format, a...)
	r.steps = append(r.steps, r.lead)
	r.lead = nil
	steps := r.steps
	r.steps = nil
	return steps
}

func (r *longRun) path(rel string) string { return r.root + "/" + rel }

func (r *longRun) write(rel, content string) fakeapi.Block {
	return fakeapi.Block{Type: "tool_use", Name: "Write", Input: map[string]any{"file_path": r.path(rel), "content": content}}
}

func (r *longRun) read(rel string) fakeapi.Block {
	return fakeapi.Block{Type: "tool_use", Name: "Read", Input: map[string]any{"file_path": r.path(rel)}}
}

func (r *longRun) edit(rel, old, new string) fakeapi.Block {
	return fakeapi.Block{Type: "tool_use", Name: "Edit", Input: map[string]any{"file_path": r.path(rel), "old_string": old, "new_string": new}}
}

func bash(command, description string) fakeapi.Block {
	return fakeapi.Block{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": command, "description": description}}
}

// todos is a TodoWrite call; each item starts with its status: "+ "
// completed, "> " in progress, "- " pending.
func todos(items ...string) fakeapi.Block {
	var list []any
	for _, it := range items {
		status := map[string]string{"+": "completed", ">": "in_progress", "-": "pending"}[it[:1]]
		content := strings.TrimSpace(it[1:])
		active := content
		if verb, rest, ok := strings.Cut(content, " "); ok {
			active = gerund(verb) + " " + rest
		}
		list = append(list, map[string]any{"content": content, "status": status, "activeForm": active})
	}
	return fakeapi.Block{Type: "tool_use", Name: "TodoWrite", Input: map[string]any{"todos": list}}
}

// gerund turns an imperative verb into its -ing form, for activeForm.
func gerund(verb string) string {
	switch {
	case strings.HasSuffix(verb, "ie"):
		return verb[:len(verb)-2] + "ying"
	case strings.HasSuffix(verb, "e") && !strings.HasSuffix(verb, "ee"):
		return verb[:len(verb)-1] + "ing"
	case verb == "Set" || verb == "Run" || verb == "Plan":
		return verb + verb[len(verb)-1:] + "ing"
	}
	return verb + "ing"
}

// toolCalls counts the tool calls of a script.
func toolCalls(steps [][]fakeapi.Block) int {
	n := 0
	for _, s := range steps {
		for _, b := range s {
			if b.Type == "tool_use" {
				n++
			}
		}
	}
	return n
}

// seed writes a project's files before the client starts, as a user's
// checkout would hold them.
func seed(root string, files map[string]string) error {
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return os.MkdirAll(root, 0o755)
}

// refuseAt answers the nth conversation requests, for each n in at, as
// the API does a context over the window, so the client compacts there.
func refuseAt(at ...int) func(int) string {
	calls := 0
	return func(n int) string {
		calls++
		for _, a := range at {
			if calls == a {
				return fmt.Sprintf("prompt is too long: %d tokens > 200000 maximum", 200000+n%9000)
			}
		}
		return ""
	}
}
