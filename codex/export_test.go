package codex_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// A rollout cairn writes carries no token figures of its sources (token
// count events, usage records): Codex would read them as how full the new
// thread's context is (issue 26 point 4).
func TestExport_NoSourceTokenCounts(t *testing.T) {
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
	const id = "5b6c7d8e-2222-4333-8444-555566667777" // testdata/compacted.jsonl: two token_count events
	if rep, err := im.Import(ctx, []string{"testdata/compacted.jsonl"}); err != nil || rep.Failed > 0 {
		t.Fatalf("import: %v %+v", err, rep)
	}
	st := surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db),
		Limits: surgery.Limits{Client: cairn.AgentCodex}}
	m, err := surgery.Select(ctx, st, id, func(*cairn.Round) (bool, bool) { return true, true }, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 19, 10, 0, 0, 0, time.UTC)
	x := &codex.Exporter{ThreadID: codex.NewThreadID(now), Now: now, Summary: surgery.Summary(m)}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 4 {
		t.Fatalf("%d lines exported: nothing of the rounds", len(lines))
	}
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"token_count"`)) || bytes.Contains(l, []byte(`"token_usage_record"`)) || bytes.Contains(l, []byte(`"total_token_usage"`)) {
			t.Errorf("line %d carries the source's token figures: %s", i+1, l)
		}
	}
}
