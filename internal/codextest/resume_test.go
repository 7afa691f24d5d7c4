package codextest_test

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
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/codextest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// TestResumeExport cuts the real client's sample with every surgical
// operation (merge mixes it with a Claude Code session), writes each cut as
// a Codex rollout, has the real client resume it, and reads the request it
// sends: the summary (with the index of compressed rounds) is there, the
// rounds in full are there verbatim (every message, every call followed by
// its output), nothing of the compressed or left-out rounds' calls is.
func TestResumeExport(t *testing.T) {
	bin := codextest.Binary(t)
	ctx := context.Background()
	st, id := mustOpenSample(t)
	full := cairn.FullFidelity
	partial := cairn.Fidelity{Thinking: cairn.DetailReference, ToolUse: cairn.DetailFull, ToolResult: cairn.DetailSummary}
	one := func(m *cairn.Materialization, err error) ([]*cairn.Materialization, error) {
		return []*cairn.Materialization{m}, err
	}
	for _, c := range []struct {
		name string
		run  func() ([]*cairn.Materialization, error)
	}{
		{"compress-before-2", func() ([]*cairn.Materialization, error) {
			return one(surgery.CompressBefore(ctx, st, id, surgery.Point{Seq: 2}, full))
		}},
		{"compress-before-3", func() ([]*cairn.Materialization, error) {
			return one(surgery.CompressBefore(ctx, st, id, surgery.Point{Seq: 3}, full))
		}},
		{"compress-before-2-partial", func() ([]*cairn.Materialization, error) {
			return one(surgery.CompressBefore(ctx, st, id, surgery.Point{Seq: 2}, partial))
		}},
		{"compress-engagement", func() ([]*cairn.Materialization, error) {
			return one(surgery.CompressEngagement(ctx, st, id, "files", full))
		}},
		{"extract-engagement", func() ([]*cairn.Materialization, error) {
			return one(surgery.ExtractEngagement(ctx, st, id, "auth", full))
		}},
		{"merge-with-claude", func() ([]*cairn.Materialization, error) {
			return one(surgery.Merge(ctx, st, id, claudeTools, full))
		}},
		{"split", func() ([]*cairn.Materialization, error) {
			sm, err := surgery.ParseSplitMap("1=files,2=auth,3=auth")
			if err != nil {
				return nil, err
			}
			return surgery.Split(ctx, st, id, sm, full)
		}},
		{"revive", func() ([]*cairn.Materialization, error) {
			return one(surgery.Revive(ctx, st, id, "", "", full))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms, err := c.run()
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				name := c.name
				if m.Label != "" {
					name += "-" + m.Label
				}
				t.Run(name, func(t *testing.T) { resumeAndCheck(t, bin, st, m, name) })
			}
		})
	}
}

// resumeAndCheck exports m as a rollout, resumes it with the real client
// and checks the request.
func resumeAndCheck(t *testing.T, bin string, st surgery.Store, m *cairn.Materialization, name string) {
	ctx := context.Background()
	x := &codex.Exporter{Summary: surgery.Summary(m), Blocks: blocksOf(m)}
	if m.Sources[0].Agent == cairn.AgentCodex {
		head, err := st.Lines.FindLines(ctx, m.Sources[0].ID, 1, 3)
		if err != nil {
			t.Fatal(err)
		}
		x.Meta = codex.MetaLine(head)
	}
	req, lines := resumeExport(t, bin, m, x, name)
	checkRequest(t, req, lines)
	for _, r := range m.IndexRounds() {
		if !strings.Contains(req.firstUserText(), export.IndexLine(r)) {
			t.Errorf("index line of round %d is not in the summary message", r.Seq)
		}
	}
	type key struct {
		session string
		seq     int
	}
	full := map[key]bool{}
	for _, p := range m.FullPieces() {
		full[key{p.Round.SessionID, p.Round.Seq}] = true
	}
	for _, src := range m.Sources {
		if src.Agent != cairn.AgentCodex {
			continue
		}
		rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: src.ID, FromSeq: 1, WithBlocks: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rounds {
			in := full[key{src.ID, r.Seq}]
			for _, b := range r.Blocks {
				switch {
				case in && (b.Kind == cairn.UserText || b.Kind == cairn.AssistantText) && !req.hasMessage(b.Content):
					t.Errorf("round %d (in full): %s %q is not in the request", r.Seq, b.Kind, b.Content)
				case in && b.Kind == cairn.ToolUse && !req.hasCall(b.ToolID):
					t.Errorf("round %d (in full): call %s is not in the request", r.Seq, b.ToolID)
				case in && b.Kind == cairn.ToolResult && m.Fidelity.ToolResult == cairn.DetailFull && req.outputs[b.ToolID] != b.Content:
					t.Errorf("round %d (in full): the output of %s is not in the request verbatim", r.Seq, b.ToolID)
				case !in && (b.Kind == cairn.ToolUse || b.Kind == cairn.ToolResult) && strings.Contains(string(req.body), b.ToolID):
					t.Errorf("round %d (not in full): %s %s is in the request", r.Seq, b.Kind, b.ToolID)
				}
			}
		}
	}
}

// blocksOf gives the exporter the blocks of rounds from other harnesses.
func blocksOf(m *cairn.Materialization) func(p *cairn.Piece) ([]*cairn.Block, error) {
	return func(p *cairn.Piece) ([]*cairn.Block, error) {
		src := m.Source(p.Round.SessionID)
		var format cairn.Transcript = claudecode.Format{}
		if src.Agent == cairn.AgentCodex {
			format = codex.Format{}
		}
		return surgery.PieceBlocks(format, src, p, m.Fidelity), nil
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
	id := rep.Files[0].SessionID
	im.Format = claudecode.Format{}
	if rep, err := im.Import(context.Background(), []string{"../../testdata/claudecode/" + claudeTools + ".jsonl"}); err != nil || rep.Failed > 0 {
		tb.Fatalf("import: %v %+v", err, rep)
	}
	tags := sqlite.NewTagStore(db)
	if err := tags.TagRounds(context.Background(), id, []int{1}, "files", ""); err != nil {
		tb.Fatal(err)
	}
	if err := tags.TagRounds(context.Background(), id, []int{2, 3}, "auth", ""); err != nil {
		tb.Fatal(err)
	}
	return surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db)}, id
}

// resumeExport writes m with x into a fresh Codex home, resumes it with the
// real client and returns the request that carried the resumed history,
// and the exported lines.
func resumeExport(t *testing.T, bin string, m *cairn.Materialization, x *codex.Exporter, name string) (*sentRequest, [][]byte) {
	t.Helper()
	api := fakeapi.NewResponses()
	defer api.Close()
	h := codextest.NewHome(t, api.URL)
	lines := writeExport(t, h, m, x, name)
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

// writeExport writes m with x as a new thread's rollout in h's Codex
// home (x's thread, folder and time set) and returns its lines; with
// CAIRN_ARTIFACTS set, a copy goes there as codex-NAME.jsonl.
func writeExport(t *testing.T, h *codextest.Home, m *cairn.Materialization, x *codex.Exporter, name string) [][]byte {
	t.Helper()
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
	return lines
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
