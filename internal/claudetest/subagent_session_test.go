package claudetest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestSubagentSession finds out what tells a sub-agent's own cairn
// commands apart from its parent's. The parent's agent and a sub-agent it
// starts each run `env` through the Bash tool: the sub-agent's shell
// carries nothing of its own (every CLAUDE*, CAIRN* and AI_* variable is
// the parent's, $CLAUDE_CODE_SESSION_ID included; seen on 2.1.197 and
// 2.1.330), so cairn cannot file its commands under it by itself; should a
// release add one, this test fails and names it. What cairn does instead:
// SubagentStart tells the sub-agent its own session (PARENT-agent-ID, the
// hand-off's child) to pass as --session, and the sub-agent's first
// request carries that line.
func TestSubagentSession(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { subagentSession(t, c, cairnBin) })
	}
}

func subagentSession(t *testing.T, c claudetest.Client, cairnBin string) {
	out := t.TempDir()
	parentEnv, subEnv := filepath.Join(out, "parent.env"), filepath.Join(out, "sub.env")
	const subPrompt = "SUB-SESSION-capture your environment"
	api := fakeapi.New(
		fakeapi.Turn{Match: "delegate the capture", Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": "env > " + parentEnv, "description": "environment"}}},
			{{Type: "tool_use", Name: "Agent", Input: map[string]any{"description": "Capture", "prompt": subPrompt, "subagent_type": "general-purpose", "run_in_background": false}}},
			{{Type: "text", Text: "Captured."}},
		}},
		fakeapi.Turn{Match: subPrompt, Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": "env > " + subEnv, "description": "environment"}}},
			{{Type: "text", Text: "Sub-agent captured."}},
		}},
	)
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")

	r := claudetest.Run(t, c.Path, home, proj, api.URL, "-p", "delegate the capture", "--allowedTools", "Agent,Task,Bash")
	if r.IsError || !strings.Contains(r.Result, "Captured.") {
		t.Fatalf("run: %+v", r)
	}
	parent, sub := readEnv(t, parentEnv), readEnv(t, subEnv)
	if parent["CLAUDE_CODE_SESSION_ID"] != r.SessionID {
		t.Errorf("the parent's shell has CLAUDE_CODE_SESSION_ID=%q, not its session %s", parent["CLAUDE_CODE_SESSION_ID"], r.SessionID)
	}
	for name, v := range sub {
		if !strings.HasPrefix(name, "CLAUDE") && !strings.HasPrefix(name, "CAIRN") && !strings.HasPrefix(name, "AI_") {
			continue
		}
		if parent[name] != v {
			t.Errorf("claude %s: the sub-agent's shell has %s=%q, the parent's %q: something that tells them apart; make cairn's session resolution (internal/cli/config.go) use it", c.Version, name, v, parent[name])
		}
	}

	// The hand-off names the child session; the sub-agent was told it.
	data, err := os.ReadFile(filepath.Join(proj, cairn.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	var s cairn.State
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Handoffs) != 1 || !strings.HasPrefix(s.Handoffs[0].Child, r.SessionID+"-agent-") {
		t.Fatalf("hand-offs %+v: want one, its child %s-agent-ID", s.Handoffs, r.SessionID)
	}
	child := s.Handoffs[0].Child
	want := "Your cairn session is " + child + ": "
	if !slices.ContainsFunc(api.Requests(), func(req fakeapi.Request) bool {
		return strings.Contains(string(req.Body), subPrompt) && strings.Contains(string(req.Body), want) && strings.Contains(string(req.Body), "--session "+child)
	}) {
		t.Errorf("no request of the sub-agent tells it its session %s", child)
	}
}

// readEnv reads what `env` wrote: NAME=value lines (a value spanning lines
// keeps only its first).
func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the Bash call did not run: %v", err)
	}
	env := map[string]string{}
	for _, l := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && k != "" && !strings.ContainsAny(k, " \t") {
			env[k] = v
		}
	}
	return env
}
