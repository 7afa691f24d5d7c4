package pitest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/pitest"
	"github.com/cairn-dev/cairn/sqlite"
)

// TestCompaction has pi compact a session (its window made small in
// models.json, the stand-in reporting a full one) and imports it: pi's
// compaction entry is a compaction block holding its summary, in the round
// where pi compacted, and the session's lines are the file.
func TestCompaction(t *testing.T) {
	c := pitest.NewestClient(t)
	api := fakeapi.New(fakeapi.Turn{Match: "fill the window", Steps: [][]fakeapi.Block{
		{{Type: "tool_use", Name: "bash", Input: map[string]any{"command": "echo FULL"}}},
		{{Type: "text", Text: "Filled."}},
	}})
	defer api.Close()
	api.SetInputTokens(15_000)
	h := pitest.NewHome(t, api.URL)
	models := strings.Replace(pitest.ModelsJSON(api.URL), `"contextWindow":200000`, `"contextWindow":20000`, 1)
	if err := os.WriteFile(filepath.Join(h.Agent(), "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Run(t, c.Bin, "fill the window")
	files := h.Sessions(t)
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	h.Run(t, c.Bin, "go on after it", "--session", files[0])
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"type":"compaction"`) {
		t.Fatalf("pi did not compact:\n%s", data)
	}
	db, im := newImporter(t)
	ctx := context.Background()
	rep, err := im.Import(ctx, files)
	if err != nil || len(rep.Files) != 1 {
		t.Fatalf("import: %v %+v", err, rep)
	}
	id := rep.Files[0].SessionID
	rounds, err := sqlite.NewRoundStore(db).FindRounds(ctx, cairn.RoundFilter{SessionID: id, WithBlocks: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rounds {
		for _, b := range r.Blocks {
			if b.Kind == cairn.CompactionBlock {
				found = true
				t.Logf("round %d: %.200s", r.Seq, b.Content)
				if !strings.Contains(b.Content, "tokens before") {
					t.Errorf("compaction block %q", b.Content)
				}
			}
		}
	}
	if !found {
		t.Error("no compaction block")
	}
}
