package opencodetest_test

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/opencodetest"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// A rig is one client with its scratch home, the stand-in it talks to and
// a cairn store: what every case here runs on, and what a conformance
// suite of adapters can hand these cases.
type rig struct {
	client opencodetest.Client
	home   *opencodetest.Home
	api    *fakeapi.Chat
	db     *sqlite.DB
	st     surgery.Store
	im     *inscribe.Importer
	logs   string // the folder of canonical logs
}

// script is what the stand-in answers: a first prompt that writes a file
// and runs a command, a second that reads and edits it.
func script() []fakeapi.ResponsesTurn {
	return []fakeapi.ResponsesTurn{
		{Match: "notes file", Steps: [][]fakeapi.Item{
			{{Type: "message", Text: "I will write the notes."}, {Type: "function_call", Name: "write",
				Arguments: map[string]any{"filePath": "notes.txt", "content": "alpha\nbeta\n"}}},
			{{Type: "function_call", Name: "bash", Arguments: map[string]any{"command": "wc -l notes.txt", "description": "Counts lines"}}},
			{{Type: "message", Text: "WROTE-NOTES: two lines."}},
		}},
		{Match: "fix the notes", Steps: [][]fakeapi.Item{
			{{Type: "function_call", Name: "read", Arguments: map[string]any{"filePath": "notes.txt"}}},
			{{Type: "function_call", Name: "edit", Arguments: map[string]any{"filePath": "notes.txt", "oldString": "beta", "newString": "gamma"}}},
			{{Type: "message", Text: "FIXED-NOTES: beta is gamma."}},
		}},
	}
}

func newRig(t *testing.T, c opencodetest.Client) *rig {
	t.Helper()
	api := fakeapi.NewChat(script()...)
	t.Cleanup(api.Close)
	r := &rig{client: c, api: api, home: opencodetest.NewHome(t, api.URL), logs: filepath.Join(t.TempDir(), "logs")}
	r.db = sqlite.NewDB(filepath.Join(t.TempDir(), "cairn.db"))
	if err := r.db.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.db.Close() })
	r.st = surgery.Store{Sessions: sqlite.NewSessionStore(r.db), Rounds: sqlite.NewRoundStore(r.db), Lines: sqlite.NewLineStore(r.db)}
	r.im = r.importer(opencode.Format{})
	return r
}

// importer returns an importer of format into the rig's store.
func (r *rig) importer(format cairn.Transcript) *inscribe.Importer {
	return &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(r.db), sqlite.NewLineStore(r.db)}, Format: format}
}

// sync mirrors the client's store and imports the logs; it returns the
// report of the session's log.
func (r *rig) sync(t *testing.T, id string) inscribe.FileReport {
	t.Helper()
	paths, err := opencode.Mirror(context.Background(), r.home.DataDir(), r.logs)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.im.Import(context.Background(), paths)
	if err != nil || rep.Failed > 0 {
		t.Fatalf("import: %v %+v", err, rep)
	}
	for _, f := range rep.Files {
		if f.SessionID == id {
			return *f
		}
	}
	t.Fatalf("import: no session %s in %+v", id, rep.Files)
	return inscribe.FileReport{}
}

// newest returns the id of the client's newest session.
func (r *rig) newest(t *testing.T) string {
	t.Helper()
	logs, err := opencode.ReadStore(context.Background(), r.home.DataDir())
	if err != nil || len(logs) == 0 {
		t.Fatalf("read store: %v, %d sessions", err, len(logs))
	}
	return logs[len(logs)-1].ID
}

// blocksOf gives a piece's blocks with its own harness's reader, as
// cmd/cairn's does.
func blocksOf(m *cairn.Materialization) func(p *cairn.Piece) ([]*cairn.Block, error) {
	return func(p *cairn.Piece) ([]*cairn.Block, error) {
		src := m.Source(p.Round.SessionID)
		var f cairn.Transcript = claudecode.Format{}
		switch src.Agent {
		case cairn.AgentCodex:
			f = codex.Format{}
		case cairn.AgentOpencode:
			f = opencode.Format{}
		}
		return surgery.PieceBlocks(f, src, p, m.Fidelity), nil
	}
}

// claudeTools is a Claude Code sample with Bash, Read, Edit and Write
// calls (testdata/claudecode; internal/codextest crosses it too).
const claudeTools = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"

// importClaude imports the Claude Code sample into the rig's store and
// returns its id.
func (r *rig) importClaude(t *testing.T) string {
	t.Helper()
	rep, err := r.importer(claudecode.Format{}).Import(context.Background(), []string{"../../testdata/claudecode/" + claudeTools + ".jsonl"})
	if err != nil || rep.Failed > 0 {
		t.Fatalf("import: %v %+v", err, rep)
	}
	return rep.Files[0].SessionID
}

// cairn runs the cairn command bin in the rig's working folder and
// environment and returns what it printed; a failure fails the test.
func (r *rig) cairn(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = r.home.Cwd, r.home.Env()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("cairn %v: %v\n%s%s", args, err, out.Bytes(), errOut.Bytes())
	}
	return out.String()
}
