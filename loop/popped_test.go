package loop

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// TestPopCollapses (issue 42, 2a): the agent pushes a frame, works and
// pops it inside one prompt's work; the turn's end after the pop finds
// the finished frame's steps hold a share of the context that pays,
// prepares the revived session with them collapsed to the frame's
// results (the round keeps its prompt and the answer after the pop) and
// shows the person the command, once, and the agent the same command at
// its next prompt.
func TestPopCollapses(t *testing.T) {
	const session = "5f0c2a1e-0000-4000-8000-0000000000a2"
	l := newLoop(t)
	l.Workspace.Session = session
	tr := &transcript{t: t, path: filepath.Join(l.Wd, session+".jsonl"), session: session}
	var mats []*cairn.Materialization
	l.Export = func(ctx context.Context, st *Stores, mat *cairn.Materialization, dir, cwd string) (string, error) {
		mats = append(mats, mat)
		return fmt.Sprintf("claude --resume 00000000-0000-4000-8000-00000000000%d", len(mats)), nil
	}
	ev := Event{Harness: ClaudeCode, Session: session, Transcript: tr.path, Cwd: l.Wd}
	ev.Kind, ev.Source = Start, FromNew
	handle(t, l, ev)
	tr.round("look around", "", "A parser is missing.")
	ev.Kind = TurnEnd
	if r := handle(t, l, ev); r != (Reply{}) {
		t.Fatalf("a turn without a pop is answered %+v", r)
	}

	at := func() time.Time { return time.Date(2026, 11, 28, 10, tr.n/60%60, tr.n%60, 0, time.UTC) }
	usage := map[string]any{"input_tokens": 300, "output_tokens": 10}
	call := func(id, command string) {
		tr.line(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_" + id, "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": "Bash", "input": map[string]any{"command": command}}}}})
	}
	result := func(id, out string) {
		tr.line(map[string]any{"type": "user", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_" + id, "content": out}}}})
	}
	tr.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "add the parser"}})
	call("p1", "cairn push Parser --criteria 'tests pass'")
	pushed := at().Add(500 * time.Millisecond)
	result("p1", "pushed f1")
	call("p2", "go test ./parser")
	result("p2", strings.Repeat("PLANTED-STEP-WORK ok parser\n", 200))
	call("p3", "cairn pop --results 'PARSER-RESULTS'")
	popped := at().Add(500 * time.Millisecond)
	result("p3", "popped f1")
	tr.line(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_p4", "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
		"content": []any{map[string]any{"type": "text", "text": "The parser is in."}}}})
	st, _ := l.Open()
	f := &cairn.Frame{ID: "f1", Title: "Parser", SuccessCriteria: "tests pass", Status: cairn.FrameCompleted, Results: "PARSER-RESULTS",
		SessionID: session, StartedAt: pushed, EndedAt: popped}
	if err := st.Frames.ApplyFrameChange(context.Background(), &cairn.FrameChange{Create: []*cairn.Frame{f}}); err != nil {
		t.Fatal(err)
	}

	r := handle(t, l, ev)
	if len(mats) != 1 || !strings.Contains(r.Person, "claude --resume 00000000-0000-4000-8000-000000000001") || !strings.Contains(r.Person, "finished frames (f1)") || r.Agent != "" {
		t.Fatalf("the turn's end after the pop: %+v, %d exported", r, len(mats))
	}
	m := mats[0]
	if len(m.Collapsed) != 1 || len(m.Collapsed[0].Steps) != 1 || m.Collapsed[0].Steps[0] != "2.1-2.3" {
		t.Fatalf("collapsed %+v, want f1 in place of steps 2.1-2.3", m.Collapsed)
	}
	var kept []string
	for _, p := range m.Pieces {
		for _, line := range p.Lines {
			kept = append(kept, string(line.Raw))
		}
	}
	all := strings.Join(kept, "\n")
	if strings.Contains(all, "PLANTED-STEP-WORK") || strings.Contains(all, "cairn push") || !strings.Contains(all, "add the parser") || !strings.Contains(all, "The parser is in.") {
		t.Errorf("the revived session's lines are not the prompt and the answer after the pop:\n%s", all)
	}
	if r := handle(t, l, ev); r != (Reply{}) {
		t.Errorf("the same pop is weighed again: %+v", r)
	}
	// One moment, one command: the next prompt tells the agent the
	// session the person was shown, once.
	ev.Kind, ev.Prompt = Prompt, "go on"
	if r := handle(t, l, ev); !strings.Contains(r.Agent, "after your pop") || !strings.Contains(r.Agent, "claude --resume 00000000-0000-4000-8000-000000000001") || r.Person != "" {
		t.Errorf("the prompt after the pop's turn: %+v", r)
	}
	if r := handle(t, l, ev); strings.Contains(r.Agent, "after your pop") {
		t.Errorf("the agent is told of the pop's session again: %q", r.Agent)
	}
}
