package geminitest_test

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
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/geminitest"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

const (
	claudeTools = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01" // a Claude Code session with Bash, Read, Edit, Write
	codexSample = "../../testdata/codex/three-rounds.jsonl"
)

// sample is a store holding both Gemini samples, a Claude Code session and
// a Codex rollout; ids maps "0.61.0", "0.30.0", "claude" and "codex" to
// their session ids.
type sample struct {
	st  surgery.Store
	ids map[string]string
}

func openSample(tb testing.TB) *sample {
	tb.Helper()
	db := sqlite.NewDB(filepath.Join(tb.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	ids := map[string]string{}
	imp := func(name string, f cairn.Transcript, path string) {
		im := &inscribe.Importer{Store: struct {
			*sqlite.InscriptionStore
			*sqlite.LineStore
		}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: f}
		rep, err := im.Import(context.Background(), []string{path})
		if err != nil || rep.Failed > 0 || len(rep.Files) != 1 {
			tb.Fatalf("import %s: %v %+v", path, err, rep)
		}
		ids[name] = rep.Files[0].SessionID
	}
	for _, v := range []string{geminitest.Newest, geminitest.Oldest} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "gemini", "testdata", v, "session-*"))
		if len(m) != 1 {
			tb.Fatalf("sample of %s: %v", v, m)
		}
		imp(v, gemini.Format{}, m[0])
	}
	imp("claude", claudecode.Format{}, "../../testdata/claudecode/"+claudeTools+".jsonl")
	imp("codex", codex.Format{}, codexSample)
	return &sample{st: surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db)}, ids: ids}
}

// blocksOf gives a full round's blocks, read back by its own harness's
// reader, at the materialization's fidelity.
func blocksOf(m *cairn.Materialization) func(p *cairn.Piece) ([]*cairn.Block, error) {
	return func(p *cairn.Piece) ([]*cairn.Block, error) {
		src := m.Source(p.Round.SessionID)
		var f cairn.Transcript = claudecode.Format{}
		switch src.Agent {
		case cairn.AgentGemini:
			f = gemini.Format{}
		case cairn.AgentCodex:
			f = codex.Format{}
		}
		return surgery.PieceBlocks(f, src, p, m.Fidelity), nil
	}
}

// resumed is what the client sent when it resumed an export.
type resumed struct {
	req   *fakeapi.GeminiRequest
	body  []byte
	lines [][]byte
}

// resumeExport writes m into a fresh home as the release c reads it, has
// the client resume it with a new prompt, and returns the conversation
// request that carried the prompt.
func resumeExport(t *testing.T, c geminitest.Client, m *cairn.Materialization, name string) (*resumed, *gemini.Exporter) {
	t.Helper()
	api := fakeapi.NewGemini()
	defer api.Close()
	h := geminitest.NewHome(t, api.URL)
	now := time.Now()
	x := &gemini.Exporter{SessionID: gemini.NewSessionID(), Project: h.Cwd, Summary: surgery.Summary(m), Now: now,
		Document: c.Name == "oldest", Blocks: blocksOf(m)}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(gemini.ChatsDir(h.Gemini, h.Cwd), x.FileName(now))
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
	if dir := os.Getenv("CAIRN_ARTIFACTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "gemini-"+c.Name+"-"+name+filepath.Ext(path)), file, 0o644)
	}
	prompt := "E2E " + name + ": carry on from here."
	h.Run(t, c.Bin, prompt, "--resume", x.SessionID)
	for _, r := range api.Requests() {
		var req fakeapi.GeminiRequest
		if json.Unmarshal(r.Body, &req) == nil && req.Conversation() && strings.Contains(string(r.Body), prompt) {
			if dir := os.Getenv("CAIRN_ARTIFACTS"); dir != "" {
				_ = os.WriteFile(filepath.Join(dir, "gemini-"+c.Name+"-"+name+".request.json"), r.Body, 0o644)
			}
			return &resumed{req: &req, body: r.Body, lines: lines}, x
		}
	}
	t.Fatalf("no conversation request carried the prompt %q; requests: %d", prompt, len(api.Requests()))
	return nil, nil
}

// checkRequest checks what the client sent after resuming: roles alternate
// user/model, every functionCall is answered by a functionResponse in the
// next content, the summary and the new prompt are there, and every text
// and call of the export reached the model.
func checkRequest(t *testing.T, r *resumed, summary, prompt string) {
	t.Helper()
	cs := r.req.Contents
	if len(cs) == 0 {
		t.Fatal("the request holds no contents")
	}
	// The client puts its own context first (<session_context>, as a user
	// content the older releases follow with the history's first user
	// content): alternation is checked after it.
	from := 0
	for from < len(cs) && strings.HasPrefix(strings.TrimSpace(cs[from].Text()), "<session_context>") {
		from++
	}
	for i := from + 1; i < len(cs); i++ {
		if cs[i].Role == cs[i-1].Role {
			t.Errorf("contents %d and %d are both %s", i-1, i, cs[i].Role)
		}
	}
	for i, c := range cs {
		for _, p := range c.Parts {
			if p.FunctionCall == nil {
				continue
			}
			answered := false
			if i+1 < len(cs) {
				for _, q := range cs[i+1].Parts {
					if q.FunctionResponse != nil && q.FunctionResponse.ID == p.FunctionCall.ID {
						answered = true
					}
				}
			}
			if !answered {
				t.Errorf("content %d: call %s (%s) has no response in the next content", i, p.FunctionCall.ID, p.FunctionCall.Name)
			}
		}
	}
	all := string(r.body)
	if !strings.Contains(all, jsonText(firstLine(summary))) {
		t.Errorf("the summary's first line %q is not in the request", firstLine(summary))
	}
	if last := cs[len(cs)-1]; last.Role != "user" || !strings.Contains(last.Text(), prompt) {
		t.Errorf("the last content is %s %.80q, want the new prompt", last.Role, last.Text())
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// TestResumeExport cuts the newest sample with the surgical operations,
// writes each cut as each supported release reads sessions (JSONL for the
// newest, the .json document for the oldest), has the real client resume
// it, and checks the request it sends; in full, every call of the kept
// rounds reaches the model with its result verbatim.
func TestResumeExport(t *testing.T) {
	clients := geminitest.Clients(t)
	s := openSample(t)
	ctx := context.Background()
	id := s.ids[geminitest.Newest]
	full := cairn.FullFidelity
	partial := cairn.Fidelity{Thinking: cairn.DetailReference, ToolUse: cairn.DetailFull, ToolResult: cairn.DetailSummary}
	cases := []struct {
		name  string
		run   func() (*cairn.Materialization, error)
		calls bool // the cut keeps calls in full
	}{
		{"compress-before-2", func() (*cairn.Materialization, error) {
			return surgery.CompressBefore(ctx, s.st, id, surgery.Point{Seq: 2}, full)
		}, true},
		{"compress-before-2-partial", func() (*cairn.Materialization, error) {
			return surgery.CompressBefore(ctx, s.st, id, surgery.Point{Seq: 2}, partial)
		}, false},
		{"revive", func() (*cairn.Materialization, error) { return surgery.Revive(ctx, s.st, id, "", "", full) }, false},
		{"compress-before-2-oldest-sample", func() (*cairn.Materialization, error) {
			return surgery.CompressBefore(ctx, s.st, s.ids[geminitest.Oldest], surgery.Point{Seq: 2}, full)
		}, true},
		{"revive-oldest-sample", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, s.st, s.ids[geminitest.Oldest], "", "", full)
		}, false},
	}
	for _, c := range clients {
		t.Run(c.Name, func(t *testing.T) {
			for _, k := range cases {
				t.Run(k.name, func(t *testing.T) {
					m, err := k.run()
					if err != nil {
						t.Fatal(err)
					}
					r, _ := resumeExport(t, c, m, k.name)
					checkRequest(t, r, surgery.Summary(m), "E2E "+k.name)
					if k.calls {
						checkCallsVerbatim(t, m, r)
					}
				})
			}
		})
	}
}

// checkCallsVerbatim checks every call of the full rounds reached the
// model, with its arguments and its result as the source recorded them.
func checkCallsVerbatim(t *testing.T, m *cairn.Materialization, r *resumed) {
	t.Helper()
	sent := map[string]string{} // name + args → response
	for i, c := range r.req.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall == nil || i+1 >= len(r.req.Contents) {
				continue
			}
			for _, q := range r.req.Contents[i+1].Parts {
				if q.FunctionResponse != nil && q.FunctionResponse.ID == p.FunctionCall.ID {
					sent[p.FunctionCall.Name+string(compact(p.FunctionCall.Args))] = string(q.FunctionResponse.Response)
				}
			}
		}
	}
	n := 0
	for _, p := range m.FullPieces() {
		for _, b := range surgery.PieceBlocks(gemini.Format{}, m.Source(p.Round.SessionID), p, cairn.FullFidelity) {
			if b.Kind != cairn.ToolUse {
				continue
			}
			n++
			if _, ok := sent[b.ToolName+b.Content]; !ok {
				t.Errorf("round %d: call %s %s did not reach the model", p.Round.Seq, b.ToolName, b.Content)
			}
		}
		for _, b := range surgery.PieceBlocks(gemini.Format{}, m.Source(p.Round.SessionID), p, cairn.FullFidelity) {
			if b.Kind == cairn.ToolResult && !strings.Contains(string(r.body), jsonText(b.Content)) {
				t.Errorf("round %d: the result of %s did not reach the model verbatim", p.Round.Seq, b.ToolName)
			}
		}
	}
	if n == 0 {
		t.Error("no call in the full rounds: the case proves nothing")
	}
}

func compact(raw json.RawMessage) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}

func nowUTC() time.Time { return time.Now().UTC() }
