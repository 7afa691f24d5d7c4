package pi_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/pi"
)

// TestExporterLines writes a Claude Code round crossing into pi: a prompt
// left unanswered joins the next, thinking is dropped and counted, Bash
// and Edit become bash and edit, a call without its result is left out,
// and the entries form one chain whose roles alternate as the Messages
// API takes them (toolResults after their call).
func TestExporterLines(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	src := &cairn.Session{ID: "c1", Agent: cairn.AgentClaudeCode, Project: "/w"}
	blocks := []*cairn.Block{
		{Kind: cairn.UserText, Role: "user", Content: "first, unanswered"},
		{Kind: cairn.UserText, Role: "user", Content: "fix it"},
		{Kind: cairn.Thinking, Role: "assistant", Content: "hmm", MessageID: "m1"},
		{Kind: cairn.AssistantText, Role: "assistant", Content: "Running.", MessageID: "m1"},
		{Kind: cairn.ToolUse, Role: "assistant", ToolName: "Bash", ToolID: "toolu_1", Content: `{"command":"ls"}`, MessageID: "m1"},
		{Kind: cairn.ToolUse, Role: "assistant", ToolName: "Edit", ToolID: "toolu_2", Content: `{"file_path":"a","old_string":"x","new_string":"y"}`, MessageID: "m1"},
		{Kind: cairn.ToolResult, Role: "user", ToolName: "Bash", ToolID: "toolu_1", Content: "a\n"},
		{Kind: cairn.ToolResult, Role: "user", ToolName: "Edit", ToolID: "toolu_2", Content: "edited", IsError: true},
		{Kind: cairn.ToolUse, Role: "assistant", ToolName: "Write", ToolID: "toolu_3", Content: `{"file_path":"b","content":"z"}`, MessageID: "m2"},
		{Kind: cairn.AssistantText, Role: "assistant", Content: "Done.", MessageID: "m3"},
	}
	m := &cairn.Materialization{Operation: "revive", Sources: []*cairn.Session{src},
		Pieces: []*cairn.Piece{{Round: &cairn.Round{SessionID: "c1", Seq: 1}, Full: true}}}
	x := &pi.Exporter{SessionID: "0b5c7a0e-1d2f-4a3b-8c4d-5e6f7a8b9c0d", Summary: "SUMMARY", Now: at,
		Blocks: func(*cairn.Piece) ([]*cairn.Block, error) { return blocks, nil }}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	if x.Crossed != (pi.Crossing{ThinkingDropped: 1, CallsMapped: 3}) {
		t.Errorf("crossed %+v", x.Crossed)
	}
	if x.FileName(at) != "2026-01-02T03-04-05-000Z_0b5c7a0e-1d2f-4a3b-8c4d-5e6f7a8b9c0d.jsonl" {
		t.Errorf("file name %s", x.FileName(at))
	}
	var header struct {
		Type, ID, Cwd string
		Version       int
	}
	if err := json.Unmarshal(lines[0], &header); err != nil || header.Type != "session" || header.Version != 3 || header.Cwd != "/w" || header.ID != x.SessionID {
		t.Fatalf("header %s: %v", lines[0], err)
	}
	var roles []string
	parent := ""
	for _, l := range lines[1:] {
		var e struct {
			ID       string  `json:"id"`
			ParentID *string `json:"parentId"`
			Message  struct {
				Role    string            `json:"role"`
				Content []json.RawMessage `json:"content"`
				Name    string            `json:"toolName"`
				IsError bool              `json:"isError"`
			} `json:"message"`
		}
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if got := ""; e.ParentID != nil {
			got = *e.ParentID
			if got != parent {
				t.Errorf("entry %s: parent %q, want %q", e.ID, got, parent)
			}
		} else if parent != "" {
			t.Errorf("entry %s has no parent", e.ID)
		}
		parent = e.ID
		r := e.Message.Role
		if r == "toolResult" {
			r += ":" + e.Message.Name
			if e.Message.Name == "edit" && !e.Message.IsError {
				r += ":not-an-error"
			}
		}
		roles = append(roles, r)
	}
	if got := strings.Join(roles, " "); got != "user assistant toolResult:bash toolResult:edit assistant" {
		t.Errorf("roles %s", got)
	}
	all := string(joinLines(lines))
	for _, want := range []string{`"text":"SUMMARY"`, `"text":"first, unanswered"`, `"type":"toolCall","id":"toolu_1","name":"bash","arguments":{"command":"ls"}`, `"oldText":"x"`, `"text":"Done."`} {
		if !strings.Contains(all, want) {
			t.Errorf("no %s in\n%s", want, all)
		}
	}
	for _, not := range []string{"hmm", `"write"`, "toolu_3"} {
		if strings.Contains(all, not) {
			t.Errorf("%s written:\n%s", not, all)
		}
	}
}

func joinLines(lines [][]byte) []byte {
	var b []byte
	for _, l := range lines {
		b = append(b, l...)
	}
	return b
}

// TestClaudeCall maps pi's calls to Claude Code's and back.
func TestClaudeCall(t *testing.T) {
	for _, c := range []struct{ tool, input, name, args string }{
		{"bash", `{"command":"ls -la"}`, "Bash", `{"command":"ls -la"}`},
		{"read", `{"path":"a.go","offset":3,"limit":4}`, "Read", `{"file_path":"a.go","limit":4,"offset":3}`},
		{"edit", `{"path":"a","edits":[{"oldText":"x","newText":"y"}]}`, "Edit", `{"file_path":"a","new_string":"y","old_string":"x"}`},
		{"edit", `{"path":"a","oldText":"x","newText":"y"}`, "Edit", `{"file_path":"a","new_string":"y","old_string":"x"}`},
		{"write", `{"path":"a","content":""}`, "Write", `{"content":"","file_path":"a"}`},
		{"edit", `{"path":"a","edits":[{"oldText":"x","newText":"y"},{"oldText":"p","newText":"q"}]}`, "", ""},
		{"grep", `{"pattern":"x"}`, "", ""},
	} {
		name, args, ok := pi.ClaudeCall(c.tool, c.input)
		raw, _ := json.Marshal(args)
		if c.name == "" {
			if ok {
				t.Errorf("%s %s mapped to %s", c.tool, c.input, name)
			}
			continue
		}
		if !ok || name != c.name || string(raw) != c.args {
			t.Errorf("%s %s: %s %s %v", c.tool, c.input, name, raw, ok)
		}
	}
}
