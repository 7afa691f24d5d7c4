package harnesstest_test

import (
	"bytes"
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
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/codextest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/geminitest"
	"github.com/cairn-dev/cairn/internal/harnesstest"
	"github.com/cairn-dev/cairn/internal/opencodetest"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/surgery"
)

const unknownField = `"cairnUnknownField":{"added":"by harnesstest"}`

// jsonlUnknown adds the unknown field to the third line.
func jsonlUnknown(data []byte) ([]byte, string) {
	return harnesstest.AddField(data, 3, unknownField), unknownField
}

func TestClaudeCode(t *testing.T) {
	harnesstest.Run(t, harnesstest.Harness{
		Name: "claude-code", Agent: cairn.AgentClaudeCode, Format: claudecode.Format{},
		Samples: []harnesstest.Sample{{Path: "../../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl"}},
		Unknown: jsonlUnknown,
		Resume: func(t *testing.T, st surgery.Store, m *cairn.Materialization, prompt string) []byte {
			bin := claudetest.Binary(t)
			home, cwd := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
			sid := claudecode.NewUUID()
			x := &claudecode.Exporter{SessionID: sid, Cwd: cwd, Summary: surgery.Summary(m)}
			lines, err := x.Lines(m)
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(claudecode.ProjectsDir(home), claudecode.ProjectDirName(cwd), sid+".jsonl"), lines)
			api := fakeapi.New()
			defer api.Close()
			if res := claudetest.Run(t, bin, home, cwd, api.URL, "--resume", sid, "-p", prompt); res.IsError {
				t.Fatalf("client reported an error: %+v", res)
			}
			return carrying(t, api.Requests(), prompt, `"tools"`)
		},
	})
}

func TestCodex(t *testing.T) {
	harnesstest.Run(t, harnesstest.Harness{
		Name: "codex", Agent: cairn.AgentCodex, Format: codex.Format{},
		Samples: []harnesstest.Sample{{Path: "../../testdata/codex/three-rounds.jsonl"}},
		Unknown: jsonlUnknown,
		Resume: func(t *testing.T, st surgery.Store, m *cairn.Materialization, prompt string) []byte {
			bin := codextest.Binary(t)
			api := fakeapi.NewResponses()
			defer api.Close()
			h := codextest.NewHome(t, api.URL)
			head, err := st.Lines.FindLines(context.Background(), m.Sources[0].ID, 1, 3)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			x := &codex.Exporter{ThreadID: codex.NewThreadID(now), Cwd: h.Cwd, Now: now, Summary: surgery.Summary(m), Meta: codex.MetaLine(head)}
			lines, err := x.Lines(m)
			if err != nil {
				t.Fatal(err)
			}
			write(t, codex.RolloutPath(h.CodexHome, x.ThreadID, now), lines)
			h.Exec(t, bin, "resume", x.ThreadID, prompt)
			return carrying(t, api.Requests(), prompt, "")
		},
	})
}

func TestGemini(t *testing.T) {
	newest, _ := filepath.Glob("../../gemini/testdata/" + geminitest.Newest + "/session-*.jsonl")
	oldest, _ := filepath.Glob("../../gemini/testdata/" + geminitest.Oldest + "/session-*.json")
	if len(newest) != 1 || len(oldest) != 1 {
		t.Fatalf("samples: %v %v", newest, oldest)
	}
	harnesstest.Run(t, harnesstest.Harness{
		Name: "gemini", Agent: cairn.AgentGemini, Format: gemini.Format{},
		Samples: []harnesstest.Sample{{Path: newest[0]}, {Path: oldest[0], Document: true}},
		Unknown: func(data []byte) ([]byte, string) {
			if bytes.HasPrefix(data, []byte("{\n")) {
				// A document's message, as the client indents it.
				return bytes.Replace(data, []byte(`      "type": "user",`), []byte(`      `+unknownField+`, "type": "user",`), 1), unknownField
			}
			return jsonlUnknown(data)
		},
		Grow: func(data []byte) []byte {
			// The client rewrites the document with one more message.
			end := bytes.LastIndex(data, []byte("\n    }\n  ]"))
			msg := "\n    },\n    {\n      \"id\": \"harnesstest-grown\",\n      \"timestamp\": \"2026-11-25T20:00:00.000Z\",\n" +
				"      \"type\": \"user\",\n      \"content\": [\n        {\n          \"text\": \"One more prompt.\"\n        }\n      ]"
			return append(append(append([]byte{}, data[:end]...), msg...), data[end:]...)
		},
		Resume: func(t *testing.T, st surgery.Store, m *cairn.Materialization, prompt string) []byte {
			c := geminitest.NewestClient(t)
			api := fakeapi.NewGemini()
			defer api.Close()
			h := geminitest.NewHome(t, api.URL)
			now := time.Now()
			src := m.Sources[0]
			x := &gemini.Exporter{SessionID: gemini.NewSessionID(), Project: h.Cwd, Now: now, Summary: surgery.Summary(m),
				Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) {
					return surgery.PieceBlocks(gemini.Format{}, src, p, m.Fidelity), nil
				}}
			lines, err := x.Lines(m)
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(gemini.ChatsDir(h.Gemini, h.Cwd), x.FileName(now)), lines)
			h.Run(t, c.Bin, prompt, "--resume", x.SessionID)
			return carrying(t, api.Requests(), prompt, `"functionDeclarations"`)
		},
	})
}

func TestOpencode(t *testing.T) {
	newest, _ := filepath.Glob("../../opencode/testdata/" + opencodetest.Newest + "/logs/*.jsonl")
	oldest, _ := filepath.Glob("../../opencode/testdata/" + opencodetest.Oldest + "/logs/*.jsonl")
	if len(newest) == 0 || len(oldest) == 0 {
		t.Fatalf("samples: %v %v", newest, oldest)
	}
	harnesstest.Run(t, harnesstest.Harness{
		Name: "opencode", Agent: cairn.AgentOpencode, Format: opencode.Format{},
		// The logs cairn keeps of what the real clients stored, one record
		// a line (opencode keeps rows and files it updates in place).
		Samples: []harnesstest.Sample{{Path: newest[0]}, {Path: oldest[0]}},
		Unknown: jsonlUnknown,
		Resume: func(t *testing.T, st surgery.Store, m *cairn.Materialization, prompt string) []byte {
			c := opencodetest.Clients(t)[0]
			api := fakeapi.NewChat()
			defer api.Close()
			h := opencodetest.NewHome(t, api.URL)
			// A first run makes the client's store, which names the
			// provider and model a written session uses.
			h.Run(t, c.Bin, "run", "hello")
			ctx := context.Background()
			target, err := opencode.ReadTarget(ctx, h.DataDir(), h.Cwd)
			if err != nil {
				t.Fatal(err)
			}
			src := m.Sources[0]
			x := &opencode.Exporter{Cwd: h.Cwd, Summary: surgery.Summary(m), Provider: target.Provider, Model: target.Model,
				Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) {
					return surgery.PieceBlocks(opencode.Format{}, src, p, m.Fidelity), nil
				}}
			sess, err := x.Export(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := opencode.WriteSession(ctx, h.DataDir(), target, x, sess); err != nil {
				t.Fatal(err)
			}
			h.Run(t, c.Bin, "run", "--session", sess.ID, prompt)
			return carrying(t, api.Requests(), prompt, `"tools"`)
		},
	})
}

// carrying returns the last request body holding prompt (and also, when
// given, marker).
func carrying(t *testing.T, reqs []fakeapi.Request, prompt, marker string) []byte {
	t.Helper()
	var body []byte
	p := jsonString(prompt)
	for _, r := range reqs {
		if bytes.Contains(r.Body, []byte(p)) && (marker == "" || bytes.Contains(r.Body, []byte(marker))) {
			body = r.Body
		}
	}
	if body == nil {
		t.Fatalf("no request carried the prompt %q", prompt)
	}
	return body
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

func write(t *testing.T, path string, lines [][]byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
}
