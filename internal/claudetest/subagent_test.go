package claudetest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestSubagent has the real client's agent start a sub-agent with cairn
// installed: the sub-agent's first request holds the relay context (the
// task in state.json, its hand-off id), and state.json holds the hand-off
// with the prompt, the parent session and the sub-agent's answer.
func TestSubagent(t *testing.T) {
	for name, bin := range claudetest.Versions(t) {
		t.Run(name, func(t *testing.T) { subagent(t, bin) })
	}
}

const (
	relayTask   = "RELAY-TASK-3e9c"
	subPrompt   = "SUB-PROMPT-count the callers"
	subAnswer   = "SUB-ANSWER-12 callers"
	parentReply = "The sub-agent answered."
)

func subagent(t *testing.T, bin string) {
	cairnBin := MustBuildCairn(t)
	api := fakeapi.New(
		fakeapi.Turn{Match: "delegate it", Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "Agent", Input: map[string]any{"description": "Count callers", "prompt": subPrompt, "subagent_type": "general-purpose", "run_in_background": false}}},
			{{Type: "text", Text: parentReply}},
		}},
		fakeapi.Turn{Match: subPrompt, Steps: [][]fakeapi.Block{{{Type: "text", Text: subAnswer}}}},
	)
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")
	mustCairn(t, cairnBin, proj, "state", "set", "--task", relayTask)

	r := claudetest.Run(t, bin, home, proj, api.URL, "-p", "delegate it", "--allowedTools", "Agent,Task")
	if r.IsError {
		t.Fatalf("run: %+v", r)
	}
	var first []byte
	for _, req := range api.Requests() {
		var body fakeapi.MessagesRequest
		if json.Unmarshal(req.Body, &body) != nil || len(body.Messages) == 0 {
			continue
		}
		if strings.Contains(strings.Join(body.Messages[0].Texts(), " "), subPrompt) || strings.Contains(string(body.Messages[0].Content), subPrompt) {
			first = req.Body
			break
		}
	}
	if first == nil {
		t.Fatalf("no request of the sub-agent (%d requests)", len(api.Requests()))
	}
	for _, want := range []string{relayTask, "You are a sub-agent working on hand-off H-001"} {
		if !strings.Contains(string(first), want) {
			t.Errorf("the sub-agent's first request lacks %q", want)
		}
	}

	// The answer is recorded when the sub-agent stops; a background one may
	// stop after the parent's reply.
	var h *cairn.Handoff
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		data, err := os.ReadFile(filepath.Join(proj, cairn.StateFile))
		if err != nil {
			t.Fatal(err)
		}
		var s cairn.State
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		if len(s.Handoffs) == 1 {
			h = s.Handoffs[0]
		}
		if h != nil && h.Status == cairn.HandoffDone || time.Now().After(deadline) {
			break
		}
	}
	if h == nil {
		t.Fatal("state.json holds no hand-off")
	}
	if !strings.Contains(h.Task, subPrompt) || h.Parent != r.SessionID || !strings.HasPrefix(h.Child, r.SessionID+"-agent-") ||
		h.Status != cairn.HandoffDone || !strings.Contains(h.Result, subAnswer) {
		t.Fatalf("hand-off %+v; want the prompt, parent %s, a child, done with %q", h, r.SessionID, subAnswer)
	}
}
