package surgery_test

import (
	"context"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

// TestReviveRemnantNoCeiling (issue 41 a): a session the client compacted
// shortly before it ended (156: 24 short rounds, /compact, one question)
// loads as a small remnant; revive fits its budget, not the remnant: every
// round keeps a row (none only in a run of rounds), every prompt is in the
// ledger from 70,000 tokens on, and --budget means what it says.
func TestReviveRemnantNoCeiling(t *testing.T) {
	st := mustOpenSamples(t)
	mustImport(t, st, "../testdata/long/7a11c0de-0000-4000-8000-000000000156.jsonl")
	ctx := context.Background()
	const id = "7a11c0de-0000-4000-8000-000000000156"
	orig, err := surgery.Resume(ctx, st.Store, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int64{surgery.AutoBudget, 60_000, 70_000, 150_000} {
		run := st.Store
		run.Limits = surgery.Limits{Budget: budget}
		m, err := surgery.Revive(ctx, run, id, "", "", cairn.FullFidelity)
		if err != nil {
			t.Fatal(err)
		}
		want := budget
		if budget == surgery.AutoBudget {
			want = surgery.DefaultBudget("")
		}
		if m.Budget != want || m.Tokens > want {
			t.Errorf("--budget %d: fitted in %d, %d tokens; want the budget %d", budget, m.Budget, m.Tokens, want)
		}
		if m.Dropped > 0 || len(m.RoundRuns) > 0 {
			t.Errorf("--budget %d: %d rounds only in runs of rounds", budget, m.Dropped)
		}
		prompts := 0
		for _, it := range m.Ledger {
			if it.Kind == cairn.LedgerPrompt {
				prompts++
			}
		}
		if m.Budget >= 70_000 && prompts != 25 { // a smaller budget's ledger has room for fewer
			t.Errorf("--budget %d: %d of 25 prompts in the ledger", budget, prompts)
		}
		t.Logf("--budget %d: %d tokens (the client loads %d today), %d rounds in full, %d rows, %d ledger items",
			budget, m.Tokens, surgery.Estimate(orig), len(m.FullPieces()), len(m.IndexRounds()), len(m.Ledger))
	}
}
