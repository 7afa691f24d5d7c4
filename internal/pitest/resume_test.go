package pitest_test

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
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/pitest"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// claudeTools is a Claude Code session with Bash, Read, Edit and Write.
const claudeTools = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"

// sample is a store holding pi's samples (newest, format 2, oldest) and a
// Claude Code session; ids maps "0.73.1", "0.32.3", "0.27.9" and "claude"
// to their session ids.
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
	for _, v := range []string{pitest.Newest, Format2, pitest.Oldest} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "pi", "testdata", v, "*.jsonl"))
		if len(m) == 0 {
			tb.Fatalf("no sample of %s", v)
		}
		imp(v, pi.Format{}, m[0]) // the first by name: the session, not its fork
	}
	imp("claude", claudecode.Format{}, "../../testdata/claudecode/"+claudeTools+".jsonl")
	return &sample{st: surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db)}, ids: ids}
}

// blocksOf gives a full round's blocks, read back by its own harness's
// reader, at the materialization's fidelity.
func blocksOf(m *cairn.Materialization) func(p *cairn.Piece) ([]*cairn.Block, error) {
	return func(p *cairn.Piece) ([]*cairn.Block, error) {
		src := m.Source(p.Round.SessionID)
		var f cairn.Transcript = claudecode.Format{}
		if src.Agent == cairn.AgentPi {
			f = pi.Format{}
		}
		return surgery.PieceBlocks(f, src, p, m.Fidelity), nil
	}
}

// resumeExport writes m into a fresh home's sessions folder, has release
// c resume it (pi --session PATH) with a new prompt, and returns the
// request that carried the prompt, with the file as pi left it.
func resumeExport(t *testing.T, c pitest.Client, m *cairn.Materialization, name string) (body []byte, x *pi.Exporter, file []byte) {
	t.Helper()
	api := fakeapi.New()
	defer api.Close()
	h := pitest.NewHome(t, api.URL)
	now := time.Now()
	x = &pi.Exporter{SessionID: pi.NewSessionID(), Cwd: h.Cwd, Summary: surgery.Summary(m), Now: now, Blocks: blocksOf(m)}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(h.SessionsDir(), x.FileName(now))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var data []byte
	for _, l := range lines {
		data = append(data, l...)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("CAIRN_ARTIFACTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "pi-"+c.Name+"-"+name+".jsonl"), data, 0o644)
	}
	prompt := "E2E " + name + ": carry on from here."
	h.Run(t, c.Bin, prompt, "--session", path)
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range api.Requests() {
		if strings.Contains(string(r.Body), prompt) {
			if dir := os.Getenv("CAIRN_ARTIFACTS"); dir != "" {
				_ = os.WriteFile(filepath.Join(dir, "pi-"+c.Name+"-"+name+".request.json"), r.Body, 0o644)
			}
			return r.Body, x, after
		}
	}
	t.Fatalf("no request carried the prompt %q; requests: %d", prompt, len(api.Requests()))
	return nil, nil, nil
}

// checkRequest checks what pi sent after resuming: the Messages API's
// rules (fakeapi.CheckRequest: roles alternate, every tool_use answered by
// its tool_result next), the summary first, the new prompt last.
func checkRequest(t *testing.T, body []byte, summary, prompt string) *fakeapi.MessagesRequest {
	t.Helper()
	for _, p := range fakeapi.CheckRequest(body, 0) {
		t.Error(p)
	}
	var req fakeapi.MessagesRequest
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		t.Fatalf("request: %v", err)
	}
	first, last := req.Messages[0], req.Messages[len(req.Messages)-1]
	if first.Role != "user" || !strings.Contains(strings.Join(first.Texts(), "\n"), firstLine(summary)) {
		t.Errorf("the first message is %s %.120q, want the summary", first.Role, strings.Join(first.Texts(), " "))
	}
	if last.Role != "user" || !strings.Contains(strings.Join(last.Texts(), " "), prompt) {
		t.Errorf("the last message is %s %.80q, want the new prompt", last.Role, strings.Join(last.Texts(), " "))
	}
	return &req
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// TestResumeExport cuts pi's samples (and a Claude Code session, crossing)
// with the surgical operations, writes each as a pi session, has each
// supported release resume it, and checks the request it sends: the
// Messages API's rules, the summary first and the prompt last, the kept
// rounds' calls with their results verbatim, and only the active branch's
// latest round when the cut keeps the last round in full.
func TestResumeExport(t *testing.T) {
	clients := pitest.Clients(t)
	s := openSample(t)
	ctx := context.Background()
	full := cairn.FullFidelity
	cases := []struct {
		name    string
		run     func() (*cairn.Materialization, error)
		want    []string // texts the request must carry
		crossed bool
	}{
		{"compress-before-2", func() (*cairn.Materialization, error) {
			return surgery.CompressBefore(ctx, s.st, s.ids[pitest.Newest], surgery.Point{Seq: 2}, full)
		}, []string{"Successfully wrote 12 bytes to notes.txt", "notes.txt", "a.txt holds alpha."}, false},
		{"revive", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, s.st, s.ids[pitest.Newest], "", "", full)
		}, []string{"a.txt holds alpha."}, false},
		{"revive-format2", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, s.st, s.ids[Format2], "", "", full)
		}, []string{"a.txt holds alpha."}, false},
		{"compress-before-2-format1", func() (*cairn.Materialization, error) {
			return surgery.CompressBefore(ctx, s.st, s.ids[pitest.Oldest], surgery.Point{Seq: 2}, full)
		}, []string{"Successfully wrote 12 bytes to notes.txt", "Wrote notes.txt."}, false},
		{"revive-claude", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, s.st, s.ids["claude"], "", "", full)
		}, nil, true},
	}
	for _, c := range clients {
		t.Run(c.Name, func(t *testing.T) {
			for _, k := range cases {
				t.Run(k.name, func(t *testing.T) {
					m, err := k.run()
					if err != nil {
						t.Fatal(err)
					}
					body, x, file := resumeExport(t, c, m, k.name)
					req := checkRequest(t, body, surgery.Summary(m), "E2E "+k.name)
					for _, w := range k.want {
						if !strings.Contains(string(body), jsonText(w)) {
							t.Errorf("the request lacks %q", w)
						}
					}
					if k.crossed && x.Crossed.CallsMapped == 0 {
						t.Errorf("crossing %+v: no call mapped to pi's", x.Crossed)
					}
					uses := 0
					for _, msg := range req.Messages {
						uses += strings.Count(string(msg.Content), `"type":"tool_use"`)
					}
					if uses == 0 {
						t.Error("no tool call reached the model: the case proves nothing")
					}
					if !strings.Contains(string(file), "E2E "+k.name) || !strings.Contains(string(file), fakeapi.DefaultReply) {
						t.Error("pi did not go on in the exported file")
					}
				})
			}
		})
	}
}
