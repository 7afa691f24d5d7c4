package claudetest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestSubagentRunsCairn has the real client's agent delegate to a
// sub-agent that runs a cairn command in Bash, in print mode with only
// Agent and Task allowed on the command line: what `cairn install claude`
// wrote is all that lets the command run. The todo it adds is in
// todos.json, and no request carries the client's refusal. The project is
// trusted, as after a person's first interactive start there: 2.1.197
// reads no permission rule of an untrusted project's settings in print
// mode (refused with or without them; 2.1.330 reads them either way).
func TestSubagentRunsCairn(t *testing.T) {
	for name, bin := range claudetest.Versions(t) {
		t.Run(name, func(t *testing.T) { subagentRunsCairn(t, bin) })
	}
}

func subagentRunsCairn(t *testing.T, bin string) {
	const (
		prompt = "SUB-PROMPT-record the todo"
		todo   = "SUBAGENT-TODO-7f1c"
	)
	cairnBin := MustBuildCairn(t)
	api := fakeapi.New(
		fakeapi.Turn{Match: "delegate the todo", Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "Agent", Input: map[string]any{"description": "Record a todo", "prompt": prompt, "subagent_type": "general-purpose", "run_in_background": false}}},
			{{Type: "text", Text: "Delegated."}},
		}},
		fakeapi.Turn{Match: prompt, Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": "cairn todo add " + todo, "description": "Add a todo"}}},
			{{Type: "text", Text: "Recorded."}},
		}},
	)
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")
	trust, _ := json.Marshal(map[string]any{"projects": map[string]any{proj: map[string]any{"hasTrustDialogAccepted": true}}})
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), trust, 0o600); err != nil {
		t.Fatal(err)
	}

	r := claudetest.Run(t, bin, home, proj, api.URL, "-p", "delegate the todo", "--allowedTools", "Agent,Task")
	if r.IsError {
		t.Fatalf("run: %+v", r)
	}
	var bashResult bool
	for _, req := range api.Requests() {
		body := string(req.Body)
		if strings.Contains(body, "tool_result") && strings.Contains(body, prompt) {
			bashResult = true
		}
		for _, refusal := range []string{"requires approval", "haven't granted it yet", "permission to use Bash"} {
			if strings.Contains(body, refusal) {
				i := strings.Index(body, refusal)
				t.Errorf("a request carries the client's refusal %q: …%s…", refusal, body[max(0, i-300):i+len(refusal)])
			}
		}
	}
	if !bashResult {
		t.Fatalf("the sub-agent's Bash call got no result (%d requests)", len(api.Requests()))
	}
	data, err := os.ReadFile(filepath.Join(proj, cairn.TodosFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), todo) {
		t.Fatalf("the sub-agent's cairn todo add did not run: todos.json is\n%s", data)
	}
}
