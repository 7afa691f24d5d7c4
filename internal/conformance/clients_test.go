package conformance_test

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
	"github.com/cairn-dev/cairn/internal/opencodetest"
	"github.com/cairn-dev/cairn/internal/pitest"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/surgery"
)

// A client is one installed release of a harness's real client.
type client struct {
	name string // newest | oldest
	bin  string
}

// A target is a harness an output is written for: the API its client
// speaks, its releases, and how an output is written and resumed.
type target struct {
	name  string
	agent string
	api   string // messages | responses | gemini | chat
	// releases are the ends of the client's supported range the tests
	// run: Codex's pins one.
	releases []string
	// clients returns the releases installed, newest first; it skips (fails
	// in CI) the test when there is none.
	clients func(t *testing.T) []client
	// resume writes m for the client, has it resume the output with
	// prompt, and returns the body of the request that carried prompt.
	resume func(t *testing.T, c client, st surgery.Store, m *cairn.Materialization, prompt string) []byte
}

var both = []string{"newest", "oldest"}

var targets = []target{
	{name: "claude-code", agent: cairn.AgentClaudeCode, api: "messages", releases: both, clients: claudeClients, resume: resumeClaude},
	{name: "codex", agent: cairn.AgentCodex, api: "responses", releases: []string{"newest"}, clients: codexClients, resume: resumeCodex},
	{name: "gemini", agent: cairn.AgentGemini, api: "gemini", releases: both, clients: geminiClients, resume: resumeGemini},
	{name: "opencode", agent: cairn.AgentOpencode, api: "chat", releases: both, clients: opencodeClients, resume: resumeOpencode},
	{name: "pi", agent: cairn.AgentPi, api: "messages", releases: both, clients: piClients, resume: resumePi},
}

func claudeClients(t *testing.T) []client {
	var out []client
	for _, c := range claudetest.Clients(t) {
		out = append(out, client{c.Name, c.Path})
	}
	return out
}

func codexClients(t *testing.T) []client {
	return []client{{"newest", codextest.Binary(t)}}
}

func geminiClients(t *testing.T) []client {
	var out []client
	for _, c := range geminitest.Clients(t) {
		out = append(out, client{c.Name, c.Bin})
	}
	return out
}

func opencodeClients(t *testing.T) []client {
	var out []client
	for _, c := range opencodetest.Clients(t) {
		out = append(out, client{c.Name, c.Bin})
	}
	return out
}

func piClients(t *testing.T) []client {
	var out []client
	for _, c := range pitest.Clients(t) {
		out = append(out, client{c.Name, c.Bin})
	}
	return out
}

// formatOf is the reader of a harness's sessions.
func formatOf(agent string) cairn.Transcript {
	switch agent {
	case cairn.AgentCodex:
		return codex.Format{}
	case cairn.AgentGemini:
		return gemini.Format{}
	case cairn.AgentOpencode:
		return opencode.Format{}
	case cairn.AgentPi:
		return pi.Format{}
	}
	return claudecode.Format{}
}

// blocksFor gives a full round's blocks as the writer for target takes
// them, as cmd/cairn gives them (blocksAt, opencodeBlocksAt): read again by
// its own harness's reader; opencode's calls as Claude Code's for the other
// writers, Gemini CLI's as Claude Code's for opencode's.
func blocksFor(target string, m *cairn.Materialization) func(p *cairn.Piece) ([]*cairn.Block, error) {
	return func(p *cairn.Piece) ([]*cairn.Block, error) {
		src := m.Source(p.Round.SessionID)
		if src == nil {
			return nil, cairn.Errorf(cairn.EINVALID, "round %d comes from no source", p.Round.Seq)
		}
		blocks := surgery.PieceBlocks(formatOf(src.Agent), src, p, m.Fidelity)
		switch {
		case target == src.Agent:
		case (target == cairn.AgentOpencode || target == cairn.AgentPi) && src.Agent == cairn.AgentGemini:
			return claudecode.GeminiBlocks(blocks), nil
		case src.Agent == cairn.AgentOpencode:
			return opencode.ClaudeBlocks(blocks), nil
		case src.Agent == cairn.AgentPi:
			return pi.ClaudeBlocks(blocks), nil
		}
		return blocks, nil
	}
}

func resumeClaude(t *testing.T, c client, st surgery.Store, m *cairn.Materialization, prompt string) []byte {
	home, cwd := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	sid := claudecode.NewUUID()
	x := &claudecode.Exporter{SessionID: sid, Cwd: cwd, Summary: surgery.Summary(m), Blocks: blocksFor(cairn.AgentClaudeCode, m)}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(claudecode.ProjectsDir(home), claudecode.ProjectDirName(cwd), sid+".jsonl"), lines)
	api := fakeapi.New()
	defer api.Close()
	if res := claudetest.Run(t, c.bin, home, cwd, api.URL, "--resume", sid, "-p", prompt); res.IsError {
		t.Fatalf("the client reported an error: %+v", res)
	}
	return carrying(t, api.Requests(), prompt, `"tools"`)
}

func resumeCodex(t *testing.T, c client, st surgery.Store, m *cairn.Materialization, prompt string) []byte {
	api := fakeapi.NewResponses()
	defer api.Close()
	h := codextest.NewHome(t, api.URL)
	now := time.Now()
	x := &codex.Exporter{ThreadID: codex.NewThreadID(now), Cwd: h.Cwd, Now: now, Summary: surgery.Summary(m), Blocks: blocksFor(cairn.AgentCodex, m)}
	if m.Sources[0].Agent == cairn.AgentCodex {
		head, err := st.Lines.FindLines(context.Background(), m.Sources[0].ID, 1, 5)
		if err != nil {
			t.Fatal(err)
		}
		x.Meta = codex.MetaLine(head)
	}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	write(t, codex.RolloutPath(h.CodexHome, x.ThreadID, now), lines)
	h.Exec(t, c.bin, "resume", x.ThreadID, prompt)
	return carrying(t, api.Requests(), prompt, "")
}

func resumeGemini(t *testing.T, c client, st surgery.Store, m *cairn.Materialization, prompt string) []byte {
	api := fakeapi.NewGemini()
	defer api.Close()
	h := geminitest.NewHome(t, api.URL)
	now := time.Now()
	x := &gemini.Exporter{SessionID: gemini.NewSessionID(), Project: h.Cwd, Summary: surgery.Summary(m), Now: now,
		Document: c.name == "oldest", Blocks: blocksFor(cairn.AgentGemini, m)}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(gemini.ChatsDir(h.Gemini, h.Cwd), x.FileName(now)), lines)
	h.Run(t, c.bin, prompt, "--resume", x.SessionID)
	return carrying(t, api.Requests(), prompt, `"functionDeclarations"`)
}

func resumeOpencode(t *testing.T, c client, st surgery.Store, m *cairn.Materialization, prompt string) []byte {
	api := fakeapi.NewChat()
	defer api.Close()
	h := opencodetest.NewHome(t, api.URL)
	// A first run makes the client's store, which names the provider and
	// model a written session uses.
	h.Run(t, c.bin, "run", "hello")
	ctx := context.Background()
	tg, err := opencode.ReadTarget(ctx, h.DataDir(), h.Cwd)
	if err != nil {
		t.Fatal(err)
	}
	x := &opencode.Exporter{Cwd: h.Cwd, Summary: surgery.Summary(m), Provider: tg.Provider, Model: tg.Model,
		Blocks: blocksFor(cairn.AgentOpencode, m)}
	sess, err := x.Export(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := opencode.WriteSession(ctx, h.DataDir(), tg, x, sess); err != nil {
		t.Fatal(err)
	}
	h.Run(t, c.bin, "run", "--session", sess.ID, prompt)
	return carrying(t, api.Requests(), prompt, `"tools"`)
}

func resumePi(t *testing.T, c client, st surgery.Store, m *cairn.Materialization, prompt string) []byte {
	api := fakeapi.New()
	defer api.Close()
	h := pitest.NewHome(t, api.URL)
	now := time.Now()
	x := &pi.Exporter{SessionID: pi.NewSessionID(), Cwd: h.Cwd, Summary: surgery.Summary(m), Now: now, Blocks: blocksFor(cairn.AgentPi, m)}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(h.SessionsDir(), x.FileName(now))
	write(t, path, lines)
	h.Run(t, c.bin, prompt, "--session", path)
	return carrying(t, api.Requests(), prompt, `"tools"`)
}

// carrying returns the last request body holding prompt (and marker, when
// given).
func carrying(t *testing.T, reqs []fakeapi.Request, prompt, marker string) []byte {
	t.Helper()
	var body []byte
	p, _ := json.Marshal(prompt)
	for _, r := range reqs {
		if bytes.Contains(r.Body, bytes.Trim(p, `"`)) && (marker == "" || bytes.Contains(r.Body, []byte(marker))) {
			body = r.Body
		}
	}
	if body == nil {
		t.Fatalf("no request carried the prompt %q (%d requests)", prompt, len(reqs))
	}
	if dir := os.Getenv("CAIRN_ARTIFACTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "conformance-"+strings.ReplaceAll(t.Name(), "/", "-")+".request.json"), body, 0o644)
	}
	return body
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
