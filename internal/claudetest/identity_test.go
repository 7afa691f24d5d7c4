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

// TestIdentity has the real client's agent move through cairn twice: once
// by running cairn engage and cairn push through the Bash tool, once by
// calling the MCP tools. Every move is filed under the session's uuid (the
// client's $CLAUDE_CODE_SESSION_ID), none under "default"; both frames
// carry the uuid; and recover finds the session by a prefix of its uuid,
// shows the path and lists the frames it pushed.
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
	var tree struct{ Frames []cairn.Frame }
	if err := json.Unmarshal([]byte(mustCairn(t, cairnBin, proj, "tree", "--json")), &tree); err != nil {
		t.Fatal(err)
	}
	sessions := map[string]string{}
	for _, f := range tree.Frames {
		sessions[f.Title] = f.SessionID
	}
	for _, title := range []string{"Bash frame", "MCP frame"} {
		if got, ok := sessions[title]; !ok {
			t.Errorf("tree lacks %q: %+v", title, tree.Frames)
		} else if got != first.SessionID {
			t.Errorf("frame %q carries session %q, want %s", title, got, first.SessionID)
		}
	}
	out := mustCairn(t, cairnBin, proj, "recover", first.SessionID[:8])
	if !strings.Contains(out, ". → api → web") {
		t.Errorf("recover %s does not show the path:\n%s", first.SessionID[:8], out)
	}
	if !strings.Contains(out, "frames it pushed or planned:") || !strings.Contains(out, `"Bash frame"`) || !strings.Contains(out, `"MCP frame"`) {
		t.Errorf("recover %s does not list the session's frames:\n%s", first.SessionID[:8], out)
	}
}
