package codextest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn"
	"cairn/codex"
	"cairn/export"
	"cairn/inscribe"
	"cairn/internal/codextest"
	"cairn/internal/fakeapi"
	"cairn/sqlite"
	"cairn/surgery"
)

// TestResumeExport cuts the real client's sample with surgery, writes each
// cut as a Codex rollout, has the real client resume it, and reads the
// request it sends: the summary (with the index of compressed rounds) is
// there, the rounds in full are there verbatim (every message, every call
// followed by its output), nothing of the compressed rounds' calls is.
func TestResumeExport(t *testing.T) {
	bin := codextest.Binary(t)
	ctx := context.Background()
	st, id := mustOpenSample(t)
	for _, c := range []struct {
		name string
		fid  cairn.Fidelity
		seq  int
	}{
		{"compress-before-2", cairn.FullFidelity, 2},
		{"compress-before-3", cairn.FullFidelity, 3},
		{"compress-before-2-partial", cairn.Fidelity{Thinking: cairn.DetailReference, ToolUse: cairn.DetailFull, ToolResult: cairn.DetailSummary}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := surgery.CompressBefore(ctx, st, id, surgery.Point{Seq: c.seq}, c.fid)
			if err != nil {
				t.Fatal(err)
			}
			head, err := st.Lines.FindLines(ctx, id, 1, 3)
			if err != nil {
				t.Fatal(err)
			}
			req, lines := resumeExport(t, bin, m, &codex.Exporter{Summary: surgery.Summary(m), Meta: codex.MetaLine(head)}, c.name)
			checkRequest(t, req, lines)
			for _, r := range m.IndexRounds() {
				if !strings.Contains(req.firstUserText(), export.IndexLine(r)) {
					t.Errorf("index line of round %d is not in the summary message", r.Seq)
				}
			}
			full := map[int]bool{}
			for _, p := range m.FullPieces() {
				full[p.Round.Seq] = true
			}
			rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: id, FromSeq: 1, WithBlocks: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rounds {
				for _, b := range r.Blocks {
					switch {
					case full[r.Seq] && (b.Kind == cairn.UserText || b.Kind == cairn.AssistantText) && !req.hasMessage(b.Content):
						t.Errorf("round %d (in full): %s %q is not in the request", r.Seq, b.Kind, b.Content)
					case full[r.Seq] && b.Kind == cairn.ToolUse && !req.hasCall(b.ToolID):
						t.Errorf("round %d (in full): call %s is not in the request", r.Seq, b.ToolID)
					case full[r.Seq] && b.Kind == cairn.ToolResult && c.fid.ToolResult == cairn.DetailFull && req.outputs[b.ToolID] != b.Content:
						t.Errorf("round %d (in full): the output of %s is not in the request verbatim", r.Seq, b.ToolID)
					case !full[r.Seq] && (b.Kind == cairn.ToolUse || b.Kind == cairn.ToolResult) && strings.Contains(string(req.body), b.ToolID):
						t.Errorf("round %d (compressed): %s %s is in the request", r.Seq, b.Kind, b.ToolID)
					}
				}
			}
		})
	}
}

// mustOpenSample returns a store holding the real client's sample and the
// sample's thread id.
func mustOpenSample(tb testing.TB) (surgery.Store, string) {
	tb.Helper()
	db := sqlite.NewDB(filepath.Join(tb.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: codex.Format{}}
	rep, err := im.Import(context.Background(), []string{filepath.Join(samplesDir, "three-rounds.jsonl")})
	if err != nil || rep.Failed > 0 {
		tb.Fatalf("import: %v %+v", err, rep)
	}
	return surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db)}, rep.Files[0].SessionID
}

// resumeExport writes m with x into a fresh Codex home, resumes it with the
// real client and returns the request that carried the resumed history,
// and the exported lines.
func resumeExport(t *testing.T, bin string, m *cairn.Materialization, x *codex.Exporter, name string) (*sentRequest, [][]byte) {
	t.Helper()
	api := fakeapi.NewResponses()
	defer api.Close()
	h := codextest.NewHome(t, api.URL)
	now := time.Now()
	x.ThreadID, x.Cwd, x.Now = codex.NewThreadID(now), h.Cwd, now
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
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
	if os.Getenv("CAIRN_ARTIFACTS") != "" {
		_ = os.WriteFile(filepath.Join(os.Getenv("CAIRN_ARTIFACTS"), "codex-"+name+".jsonl"), file, 0o644)
	}
	prompt := "E2E " + name + ": carry on from here."
	h.Exec(t, bin, "resume", x.ThreadID, prompt)
	for _, r := range api.Requests() {
		if strings.Contains(string(r.Body), prompt) {
			if os.Getenv("CAIRN_ARTIFACTS") != "" {
				_ = os.WriteFile(filepath.Join(os.Getenv("CAIRN_ARTIFACTS"), "codex-"+name+".request.json"), r.Body, 0o644)
			}
			return readSent(t, r.Body), lines
		}
	}
	t.Fatalf("no request carried the prompt %q", prompt)
	return nil, nil
}

// A sentRequest is what the client sent, indexed.
type sentRequest struct {
	body    []byte
	input   []fakeapi.InputItem
	outputs map[string]string // call id → output
}

func readSent(t *testing.T, body []byte) *sentRequest {
	t.Helper()
	var req fakeapi.ResponsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	s := &sentRequest{body: body, input: req.Input, outputs: map[string]string{}}
	for _, it := range req.Input {
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			s.outputs[it.CallID] = it.OutputText()
		}
	}
	return s
}

// firstUserText is the text of the first user message the client did not
// inject.
func (s *sentRequest) firstUserText() string {
	for _, it := range s.input {
		if it.Type == "message" && it.Role == "user" && !it.Injected() {
			return it.Text()
		}
	}
	return ""
}

func (s *sentRequest) hasMessage(text string) bool {
	for _, it := range s.input {
		if it.Type == "message" && it.Text() == text {
			return true
		}
	}
	return false
}

func (s *sentRequest) hasCall(id string) bool {
	for _, it := range s.input {
		if (it.Type == "function_call" || it.Type == "custom_tool_call") && it.CallID == id {
			return true
		}
	}
	return false
}

// checkRequest checks what every resumed export must hold: each message and
// call of the export arrives, and every output comes after its call.
func checkRequest(t *testing.T, req *sentRequest, lines [][]byte) {
	t.Helper()
	seen := map[string]bool{}
	for i, it := range req.input {
		switch it.Type {
		case "function_call", "custom_tool_call":
			seen[it.CallID] = true
		case "function_call_output", "custom_tool_call_output":
			if !seen[it.CallID] {
				t.Errorf("request item %d: the output of %s comes before its call", i, it.CallID)
			}
		}
	}
	for n, raw := range lines {
		var l struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(raw, &l) != nil || l.Type != "response_item" {
			continue
		}
		var it fakeapi.InputItem
		_ = json.Unmarshal(l.Payload, &it)
		switch it.Type {
		case "message":
			if it.Role != "developer" && !req.hasMessage(it.Text()) {
				t.Errorf("export line %d: %s message %.80q is not in the request", n+1, it.Role, it.Text())
			}
		case "function_call", "custom_tool_call":
			if !req.hasCall(it.CallID) {
				t.Errorf("export line %d: call %s is not in the request", n+1, it.CallID)
			}
		case "function_call_output", "custom_tool_call_output":
			if req.outputs[it.CallID] != it.OutputText() {
				t.Errorf("export line %d: output of %s is not in the request verbatim", n+1, it.CallID)
			}
		}
	}
}
