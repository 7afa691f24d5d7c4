package claudetest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/internal/claudetest"
	"cairn/internal/fakeapi"
)

// TestIdentity has the real client's agent move through cairn twice: once
// by running cairn engage and cairn push through the Bash tool, once by
// calling the MCP tools. Every move is filed under the session's uuid (the
// client's $CLAUDE_CODE_SESSION_ID), none under "default", and recover
// finds the session by a prefix of its uuid and shows the path.
func TestIdentity(t *testing.T) {
	for name, bin := range claudetest.Versions(t) {
		t.Run(name, func(t *testing.T) { identity(t, bin) })
	}
}

func identity(t *testing.T, bin string) {
	cairnBin := MustBuildCairn(t)
	api := fakeapi.New(
		fakeapi.Turn{Match: "move by bash", Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": "cairn engage api --why by-bash && cairn push 'Bash frame' --root --criteria done", "description": "move"}}},
			{{Type: "text", Text: "Moved by bash."}},
		}},
		fakeapi.Turn{Match: "move by mcp", Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "mcp__cairn__engage", Input: map[string]any{"to": "web", "why": "by-mcp"}}},
			{{Type: "tool_use", Name: "mcp__cairn__push", Input: map[string]any{"title": "MCP frame", "criteria": "done"}}},
			{{Type: "text", Text: "Moved by mcp."}},
		}},
	)
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")
	for _, dir := range []string{"api", "web"} {
		if err := os.Mkdir(filepath.Join(proj, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	first := claudetest.Run(t, bin, home, proj, api.URL, "-p", "move by bash", "--allowedTools", "Bash")
	if first.IsError || !strings.Contains(first.Result, "Moved by bash.") {
		t.Fatalf("bash run: %+v", first)
	}
	second := claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "move by mcp",
		"--allowedTools", "mcp__cairn__engage,mcp__cairn__push")
	if second.IsError || !strings.Contains(second.Result, "Moved by mcp.") {
		t.Fatalf("mcp run: %+v", second)
	}

	traces, _ := filepath.Glob(filepath.Join(proj, ".cairn", "traces", "*.md"))
	if len(traces) != 1 || filepath.Base(traces[0]) != first.SessionID+".md" {
		t.Fatalf("traces %v, want only %s.md", traces, first.SessionID)
	}
	trace, err := os.ReadFile(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{". → api | by-bash", "api → web | by-mcp"} {
		if !strings.Contains(string(trace), want) {
			t.Errorf("trace lacks %q:\n%s", want, trace)
		}
	}
	tree := mustCairn(t, cairnBin, proj, "tree")
	for _, want := range []string{"Bash frame", "MCP frame"} {
		if !strings.Contains(tree, want) {
			t.Errorf("tree lacks %q:\n%s", want, tree)
		}
	}
	out := mustCairn(t, cairnBin, proj, "recover", first.SessionID[:8])
	if !strings.Contains(out, ". → api → web") {
		t.Errorf("recover %s does not show the path:\n%s", first.SessionID[:8], out)
	}
}
