package codextest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/codextest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// A Claude Code session made by the real claude (auth, migration,
// benchmark; Bash, Read, Edit, Write calls), and its second round's
// thinking-free answer.
const claudeTools = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"

// TestCrossToCodex continues a Claude Code session in Codex: the real codex
// resumes the export, and its request holds every prompt and answer of the
// rounds kept in full, Bash, Read, Edit and Write as Codex's own calls
// (exec_command, apply_patch) each followed by its output, and the rest as
// text.
func TestCrossToCodex(t *testing.T) {
	bin := codextest.Binary(t)
	ctx := context.Background()
	st := mustOpenClaude(t)
	m, err := surgery.CompressBefore(ctx, st, claudeTools, surgery.Point{Seq: 2}, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	src := m.Sources[0]
	x := &codex.Exporter{Summary: surgery.Summary(m), Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) {
		return surgery.PieceBlocks(claudecode.Format{}, src, p, m.Fidelity), nil
	}}
	req, lines := resumeExport(t, bin, m, x, "cross-to-codex")
	checkRequest(t, req, lines)
	thinking := 0
	for _, p := range m.FullPieces() {
		for _, b := range surgery.PieceBlocks(claudecode.Format{}, src, p, m.Fidelity) {
			if b.Kind == cairn.Thinking && !b.Sidechain {
				thinking++
			}
		}
	}
	if x.Crossed.CallsMapped == 0 || x.Crossed.ThinkingDropped != thinking {
		t.Errorf("crossed %+v, want calls mapped and %d thinking blocks dropped", x.Crossed, thinking)
	}
	if strings.Contains(string(req.body), `"type":"reasoning"`) {
		t.Errorf("thinking crossed into the request")
	}
	t.Logf("crossed: %+v", x.Crossed)
	for _, p := range m.FullPieces() {
		for _, b := range surgery.PieceBlocks(claudecode.Format{}, src, p, m.Fidelity) {
			switch {
			case b.Sidechain:
			case b.Kind == cairn.UserText && !req.hasMessage(b.Content):
				t.Errorf("round %d: prompt %.60q is not in the request", p.Round.Seq, b.Content)
			case b.Kind == cairn.AssistantText && strings.TrimSpace(b.Content) != "" && !req.hasMessage(b.Content):
				t.Errorf("round %d: answer %.60q is not in the request", p.Round.Seq, b.Content)
			case b.Kind == cairn.ToolUse && (b.ToolName == "Bash" || b.ToolName == "Edit" || b.ToolName == "Read"):
				if !req.hasCall(b.ToolID) {
					t.Errorf("round %d: %s call %s is not in the request as a Codex call", p.Round.Seq, b.ToolName, b.ToolID)
				}
			case b.Kind == cairn.ToolResult && req.outputs[b.ToolID] != "" && req.outputs[b.ToolID] != b.Content:
				t.Errorf("round %d: the output of %s is not verbatim", p.Round.Seq, b.ToolID)
			}
		}
	}
}

// TestCrossToClaude continues the real codex's session in Claude Code: the
// real claude resumes the export, and its request holds the kept rounds'
// prompts and answers, and each exec_command as a Bash tool_use answered by
// its tool_result.
func TestCrossToClaude(t *testing.T) {
	bin := claudetest.Binary(t)
	ctx := context.Background()
	st, id := mustOpenSample(t)
	m, err := surgery.CompressBefore(ctx, st, id, surgery.Point{Seq: 2}, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	src := m.Sources[0]
	home, cwd := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	sid := claudecode.NewUUID()
	x := &claudecode.Exporter{SessionID: sid, Cwd: cwd, Summary: surgery.Summary(m), Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) {
		return surgery.PieceBlocks(codex.Format{}, src, p, m.Fidelity), nil
	}}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	if x.Crossed.CallsMapped != 2 {
		t.Errorf("crossed %+v, want the two exec_command calls mapped", x.Crossed)
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
	prompt := "E2E cross-to-claude: carry on."
	if res := claudetest.Run(t, bin, home, cwd, api.URL, "--resume", sid, "-p", prompt); res.IsError {
		t.Fatalf("client reported an error: %+v", res)
	}
	var body []byte
	for _, r := range api.Requests() {
		if strings.Contains(string(r.Body), prompt) && strings.Contains(string(r.Body), `"tools"`) {
			body = r.Body
		}
	}
	if body == nil {
		t.Fatal("no request carried the prompt")
	}
	var req fakeapi.MessagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var texts []string
	uses, results := map[string]string{}, map[string]string{}
	for _, msg := range req.Messages {
		texts = append(texts, msg.Texts()...)
		var blocks []struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(msg.Content, &blocks)
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				uses[b.ID] = b.Name + " " + string(b.Input)
			case "tool_result":
				if uses[b.ToolUseID] == "" {
					t.Errorf("tool_result %s comes before its tool_use", b.ToolUseID)
				}
				results[b.ToolUseID] = string(b.Content)
			}
		}
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"now check auth", "Auth works: AUTH-OK and TOKEN-VALID.", "summarize what we did", "We listed the files and checked auth."} {
		if !strings.Contains(all, want) {
			t.Errorf("%q is not in the request", want)
		}
	}
	for _, cmd := range []string{"echo AUTH-OK", "echo TOKEN-VALID"} {
		found := false
		for id, u := range uses {
			if strings.HasPrefix(u, "Bash ") && strings.Contains(u, cmd) {
				found = true
				if !strings.Contains(results[id], strings.TrimPrefix(cmd, "echo ")) {
					t.Errorf("the Bash call %q has no result holding its output: %q", cmd, results[id])
				}
			}
		}
		if !found {
			t.Errorf("no Bash tool_use runs %q: %v", cmd, uses)
		}
	}
	// Round 1 (compressed) ran printf; only its index line may remain.
	if strings.Contains(string(body), "printf") {
		t.Errorf("the compressed round's call is in the request")
	}
}

// mustOpenClaude returns a store holding the Claude Code samples.
func mustOpenClaude(tb testing.TB) surgery.Store {
	tb.Helper()
	db := sqlite.NewDB(filepath.Join(tb.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: claudecode.Format{}}
	rep, err := im.Import(context.Background(), []string{"../../testdata/claudecode"})
	if err != nil || rep.Failed > 0 {
		tb.Fatalf("import: %v %+v", err, rep)
	}
	return surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db)}
}
