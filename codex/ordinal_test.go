package codex_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// A rollout of numbered lines (a Codex source's own, "ordinal" on every
// line) and a crossed round after them, as a merge of a Codex session and
// another harness's writes it: every line is numbered in order. The real
// client refuses a rollout whose last line has none ("final paginated
// rollout record … is missing an ordinal"; internal/conformance's merge
// of codex into codex).
func TestExport_OrdinalsOnEveryLine(t *testing.T) {
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
	rep, err := im.Import(ctx, []string{"../testdata/codex/three-rounds.jsonl"})
	if err != nil || rep.Failed > 0 {
		t.Fatalf("import: %v %+v", err, rep)
	}
	st := surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db)}
	m, err := surgery.Select(ctx, st, rep.Files[0].SessionID, func(*cairn.Round) (bool, bool) { return true, true }, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	r := &cairn.Round{SessionID: "claude-1", Seq: 1, FirstLine: 1, LastLine: 4, Blocks: []*cairn.Block{
		{LineNo: 1, Kind: cairn.UserText, Content: "count the lines"},
		{LineNo: 2, Kind: cairn.ToolUse, ToolName: "Bash", ToolID: "t1", Content: `{"command":"wc -l a.txt"}`, MessageID: "m1"},
		{LineNo: 3, Kind: cairn.ToolResult, ToolName: "Bash", ToolID: "t1", Content: "3 a.txt"},
		{LineNo: 4, Kind: cairn.AssistantText, Content: "Three lines.", MessageID: "m2"},
	}}
	m.Sources = append(m.Sources, &cairn.Session{ID: "claude-1", Agent: cairn.AgentClaudeCode})
	m.Pieces = append(m.Pieces, &cairn.Piece{Round: r, Full: true})
	head, err := st.Lines.FindLines(ctx, m.Sources[0].ID, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 19, 10, 0, 0, 0, time.UTC)
	x := &codex.Exporter{ThreadID: codex.NewThreadID(now), Now: now, Summary: "SUMMARY", Meta: codex.MetaLine(head),
		Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) { return p.Round.Blocks, nil }}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		var v struct {
			Ordinal *int `json:"ordinal"`
		}
		if err := json.Unmarshal(l, &v); err != nil {
			t.Fatal(err)
		}
		if v.Ordinal == nil || *v.Ordinal != i {
			t.Errorf("line %d of %d: ordinal %v, want %d: %.120s", i, len(lines), v.Ordinal, i, l)
		}
	}
}
