package codextest_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"cairn"
	"cairn/codex"
	"cairn/inscribe"
	"cairn/internal/codextest"
	"cairn/internal/fakeapi"
	"cairn/sqlite"
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
	id := h.Exec(t, bin, "please list the files")
	h.Exec(t, bin, "resume", id, "now check auth")
	h.Exec(t, bin, "resume", id, "summarize what we did")
	path := h.Rollout(t, id)
	if *update {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(samplesDir, "three-rounds.jsonl"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkInscribed(t, path, 3)
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
func checkInscribed(t *testing.T, path string, rounds int) {
	t.Helper()
	ctx := context.Background()
	db := sqlite.NewDB(filepath.Join(t.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
}
