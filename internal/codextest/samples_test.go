package codextest_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/codextest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/sqlite"
)

var update = flag.Bool("update", false, "rewrite the samples in testdata/codex from the real client")

// samplesDir holds rollouts the real client wrote (see its README).
const samplesDir = "../../testdata/codex"

// script is what the stand-in answers while the samples are made: a shell
// call, two parallel calls, and plain answers.
var script = []fakeapi.ResponsesTurn{
	{Match: "list the files", Steps: [][]fakeapi.Item{
		{{Type: "reasoning", Text: "Listing the working directory first."},
			{Type: "function_call", Name: "exec_command", Arguments: map[string]any{"cmd": "printf 'go.mod\\nmain.go\\n'"}}},
		{{Type: "message", Text: "Two files: go.mod and main.go."}},
	}},
	{Match: "check auth", Steps: [][]fakeapi.Item{
		{{Type: "function_call", Name: "exec_command", Arguments: map[string]any{"cmd": "echo AUTH-OK"}},
			{Type: "function_call", Name: "exec_command", Arguments: map[string]any{"cmd": "echo TOKEN-VALID"}}},
		{{Type: "message", Text: "Auth works: AUTH-OK and TOKEN-VALID."}},
	}},
	{Match: "summarize", Steps: [][]fakeapi.Item{
		{{Type: "message", Text: "We listed the files and checked auth."}},
	}},
}

// TestSamples has the real client make a three-round session (a fresh exec
// and two resumes) and inscribes it: every byte is stored, the rounds start
// at the three prompts, and the tool calls pair with their outputs in
// steps. With -update the rollout is copied to testdata/codex.
func TestSamples(t *testing.T) {
	bin := codextest.Binary(t)
	api := fakeapi.NewResponses(script...)
	defer api.Close()
	h := codextest.NewHome(t, api.URL)
	grown := mustOpenStore(t)
	id := h.Exec(t, bin, "please list the files")
	path := h.Rollout(t, id)
	importInto(t, grown, path, "new")
	h.Exec(t, bin, "resume", id, "now check auth")
	importInto(t, grown, path, "appended")
	h.Exec(t, bin, "resume", id, "summarize what we did")
	importInto(t, grown, path, "appended")
	importInto(t, grown, path, "unchanged")
	if *update {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(samplesDir, "three-rounds.jsonl"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fresh := checkInscribed(t, path, 3)
	// Imported as it grew, the session is what one import of the whole
	// file makes.
	if got, want := roundsOf(t, grown, id), roundsOf(t, fresh, id); got != want {
		t.Errorf("imported as it grew:\n%s\nimported whole:\n%s", got, want)
	}
}

func mustOpenStore(tb testing.TB) *sqlite.DB {
	tb.Helper()
	db := sqlite.NewDB(filepath.Join(tb.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// importInto imports path and checks the file's status (new, appended…).
func importInto(t *testing.T, db *sqlite.DB, path, status string) {
	t.Helper()
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: codex.Format{}}
	rep, err := im.Import(context.Background(), []string{path})
	if err != nil || len(rep.Files) != 1 || string(rep.Files[0].Status) != status {
		t.Fatalf("import: %v %+v, want status %s", err, rep, status)
	}
}

// roundsOf renders a session's rounds and blocks.
func roundsOf(t *testing.T, db *sqlite.DB, id string) string {
	t.Helper()
	rs, err := sqlite.NewRoundStore(db).FindRounds(context.Background(), cairn.RoundFilter{SessionID: id, WithBlocks: true})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "round %d lines %d-%d %q %q %v %+v\n", r.Seq, r.FirstLine, r.LastLine, r.UserPreview, r.AgentPreview, r.Tools, r.Usage)
		for _, bl := range r.Blocks {
			fmt.Fprintf(&b, "  %d %s %s %s %q\n", bl.LineNo, bl.Kind, bl.ToolName, bl.MessageID, bl.Content)
		}
	}
	return b.String()
}

// TestSampleFiles inscribes every sample byte for byte.
func TestSampleFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(samplesDir, "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no samples in " + samplesDir)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { checkInscribed(t, f, -1) })
	}
}

// checkInscribed imports path into a fresh store and checks that its lines
// are the file byte for byte, that it has rounds rounds (-1: any), that
// every round has a prompt, and that every tool call of a step is answered
// in that step.
func checkInscribed(t *testing.T, path string, rounds int) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	db := mustOpenStore(t)
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: codex.Format{}}
	rep, err := im.Import(ctx, []string{path})
	if err != nil || rep.Failed > 0 || len(rep.Problems) > 0 {
		t.Fatalf("import: %v %+v", err, rep)
	}
	sess, err := sqlite.NewSessionStore(db).FindSessionByID(ctx, rep.Files[0].SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Agent != cairn.AgentCodex {
		t.Errorf("agent %q, want %q", sess.Agent, cairn.AgentCodex)
	}
	lines, err := sqlite.NewLineStore(db).FindLines(ctx, sess.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	for _, l := range lines {
		got = append(got, l.Raw...)
	}
	want, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) {
		t.Errorf("stored lines are not the file: %d bytes, want %d", len(got), len(want))
	}
	rs, err := sqlite.NewRoundStore(db).FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID, FromSeq: 1, WithBlocks: true})
	if err != nil {
		t.Fatal(err)
	}
	if rounds >= 0 && len(rs) != rounds {
		t.Errorf("%d rounds, want %d", len(rs), rounds)
	}
	for _, r := range rs {
		if r.UserPreview == "" {
			t.Errorf("round %d has no prompt", r.Seq)
		}
		for _, s := range cairn.Steps(r.Blocks, r.LastLine) {
			for _, c := range s.Calls {
				if !c.Answered {
					t.Errorf("step %d.%d: %s call not answered in its step: %s", r.Seq, s.Seq, c.Tool, s.IndexLine())
				}
			}
		}
	}
	return db
}
