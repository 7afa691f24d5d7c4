package opencodetest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/codextest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/opencodetest"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/surgery"
)

// TestCrossToOpencode continues the real codex's session in opencode: the
// newest opencode continues the export, and its request holds the kept
// rounds' prompts and answers and each exec_command as a bash call
// answered by its output; no Codex tool name crosses.
func TestCrossToOpencode(t *testing.T) {
	c := opencodetest.Clients(t)[0]
	r := newRig(t, c)
	ctx := context.Background()
	r.home.Run(t, c.Bin, "run", "hello") // the client makes its store
	rep, err := r.importer(codex.Format{}).Import(ctx, []string{"../../testdata/codex/three-rounds.jsonl"})
	if err != nil || rep.Failed > 0 {
		t.Fatalf("import: %v %+v", err, rep)
	}
	st := r.st
	st.Limits = surgery.Limits{Budget: surgery.AutoBudget, Client: cairn.AgentOpencode}
	m, err := surgery.Revive(ctx, st, rep.Files[0].SessionID, "", "", cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := r.resume(t, m)
	checkRequest(t, req)
	text := requestText(req)
	if !strings.Contains(text, "call:bash") {
		t.Errorf("no Codex shell call crossed as bash: %s", roles(req.Messages))
	}
	for _, name := range []string{"exec_command", "apply_patch", "shell"} {
		if strings.Contains(text, "call:"+name+" ") {
			t.Errorf("a Codex %s call crossed as itself", name)
		}
	}
	for _, p := range m.FullPieces() {
		for _, b := range blocksOfOne(t, m, p) {
			if (b.Kind == cairn.UserText || b.Kind == cairn.AssistantText) && strings.TrimSpace(b.Content) != "" && !strings.Contains(text, b.Content) {
				t.Errorf("round %d: %.60q is not in the request", p.Round.Seq, b.Content)
			}
		}
	}
}

func blocksOfOne(t *testing.T, m *cairn.Materialization, p *cairn.Piece) []*cairn.Block {
	t.Helper()
	bs, err := blocksOf(m)(p)
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

// fromOpencode has the newest opencode write a session of two prompts
// (write, bash; read, edit) and returns its revive as a materialization.
func fromOpencode(t *testing.T, client string) *cairn.Materialization {
	t.Helper()
	r := newRig(t, opencodetest.Clients(t)[0])
	r.home.Run(t, r.client.Bin, "run", "make the notes file")
	id := r.newest(t)
	r.home.Run(t, r.client.Bin, "run", "--session", id, "fix the notes")
	r.sync(t, id)
	st := r.st
	st.Limits = surgery.Limits{Budget: 0, Client: client}
	m, err := surgery.Revive(context.Background(), st, id, "", "", cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// crossedBlocks gives an opencode round's blocks as the Claude Code and
// Codex writers get them (opencode.ClaudeBlocks), as cmd/cairn does.
func crossedBlocks(m *cairn.Materialization) func(p *cairn.Piece) ([]*cairn.Block, error) {
	return func(p *cairn.Piece) ([]*cairn.Block, error) {
		bs, err := blocksOf(m)(p)
		return opencode.ClaudeBlocks(bs), err
	}
}

// TestCrossFromOpencodeToClaude continues a session of the real opencode
// in the real claude: write, bash, read and edit arrive as Claude Code's
// Write, Bash, Read and Edit tool_use blocks, each answered by its
// tool_result.
func TestCrossFromOpencodeToClaude(t *testing.T) {
	bin := claudetest.Binary(t)
	m := fromOpencode(t, cairn.AgentClaudeCode)
	home, cwd := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	sid := claudecode.NewUUID()
	x := &claudecode.Exporter{SessionID: sid, Cwd: cwd, Summary: surgery.Summary(m), Blocks: crossedBlocks(m)}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	if x.Crossed.CallsMapped != 4 || x.Crossed.CallsAsText != 0 {
		t.Errorf("crossed %+v, want the 4 calls mapped", x.Crossed)
	}
	dir := filepath.Join(claudecode.ProjectsDir(home), claudecode.ProjectDirName(cwd))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var file []byte
	for _, l := range lines {
		file = append(file, l...)
	}
	if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	api := fakeapi.New()
	defer api.Close()
	prompt := "E2E opencode-to-claude: carry on."
	if res := claudetest.Run(t, bin, home, cwd, api.URL, "--resume", sid, "-p", prompt); res.IsError {
		t.Fatalf("client reported an error: %+v", res)
	}
	var req *fakeapi.MessagesRequest
	for _, raw := range api.Requests() {
		var mr fakeapi.MessagesRequest
		if json.Unmarshal(raw.Body, &mr) == nil && len(mr.Tools) > 0 && strings.Contains(string(raw.Body), prompt) {
			req = &mr
		}
	}
	if req == nil {
		t.Fatal("no request carried the prompt")
	}
	uses, results := map[string]string{}, map[string]bool{}
	for _, msg := range req.Messages {
		var blocks []struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			Name      string `json:"name"`
			ToolUseID string `json:"tool_use_id"`
		}
		_ = json.Unmarshal(msg.Content, &blocks)
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				uses[b.ID] = b.Name
			case "tool_result":
				results[b.ToolUseID] = true
			}
		}
	}
	got := map[string]bool{}
	for id, name := range uses {
		got[name] = true
		if !results[id] {
			t.Errorf("%s call %s has no tool_result", name, id)
		}
	}
	for _, name := range []string{"Write", "Bash", "Read", "Edit"} {
		if !got[name] {
			t.Errorf("no %s tool_use in the request (got %v)", name, got)
		}
	}
	if !strings.Contains(string(mustJSON(req)), "FIXED-NOTES") {
		t.Errorf("the last answer is not in the request")
	}
}

// TestCrossFromOpencodeToCodex continues a session of the real opencode
// in the real codex: bash and read arrive as exec_command, write and edit
// as apply_patch, each followed by its output.
func TestCrossFromOpencodeToCodex(t *testing.T) {
	bin := codextest.Binary(t)
	m := fromOpencode(t, cairn.AgentCodex)
	api := fakeapi.NewResponses()
	defer api.Close()
	h := codextest.NewHome(t, api.URL)
	now := time.Now()
	x := &codex.Exporter{ThreadID: codex.NewThreadID(now), Cwd: h.Cwd, Now: now, Summary: surgery.Summary(m), Blocks: crossedBlocks(m)}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	if x.Crossed.CallsMapped != 4 || x.Crossed.CallsAsText != 0 {
		t.Errorf("crossed %+v, want the 4 calls mapped", x.Crossed)
	}
	path := codex.RolloutPath(h.CodexHome, x.ThreadID, now)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var file []byte
	for _, l := range lines {
		file = append(file, l...)
	}
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	prompt := "E2E opencode-to-codex: carry on."
	h.Exec(t, bin, "resume", x.ThreadID, prompt)
	var req *fakeapi.ResponsesRequest
	for _, raw := range api.Requests() {
		var rr fakeapi.ResponsesRequest
		if json.Unmarshal(raw.Body, &rr) == nil && strings.Contains(string(raw.Body), prompt) {
			req = &rr
		}
	}
	if req == nil {
		t.Fatal("no request carried the prompt")
	}
	calls, outputs := map[string]string{}, map[string]bool{}
	for _, it := range req.Input {
		switch it.Type {
		case "function_call", "custom_tool_call":
			calls[it.CallID] = it.Name
		case "function_call_output", "custom_tool_call_output":
			outputs[it.CallID] = true
		}
	}
	count := map[string]int{}
	for id, name := range calls {
		count[name]++
		if !outputs[id] {
			t.Errorf("%s call %s has no output", name, id)
		}
	}
	if count["exec_command"] != 2 || count["apply_patch"] != 2 {
		t.Errorf("calls %v, want 2 exec_command (bash, read) and 2 apply_patch (write, edit)", count)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
