package surgery_test

import (
	"context"

	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/surgery"
)

// longGenerated lists the sessions of ../testdata/long (made by the real
// client: an auto-compaction inside a round, /compact between rounds, and
// whatever shapes have been added since).
func longGenerated(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob("../testdata/long/*.jsonl")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no sessions in ../testdata/long: %v", err)
	}
	var ids []string
	for _, f := range files {
		ids = append(ids, strings.TrimSuffix(filepath.Base(f), ".jsonl"))
	}
	return ids
}

// TestEveryStepReachable: whatever the budget and however many compactions
// a session has, each step of each round of a revive or a compress-before
// is in the output in full, or named by an index entry that `cairn inject`
// expands within half the budget (a step larger than that by its
// own entry); no round is left out.
func TestEveryStepReachable(t *testing.T) {
	st := mustOpenShared(t)
	mustImport(t, st, "../testdata/long")
	sharedStore = st.Store
	ctx := context.Background()
	ids := append(longGenerated(t), longSessions...)
	for _, id := range ids {
		t.Run(short(id), func(t *testing.T) {
			rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: id, WithBlocks: true})
			if err != nil {
				t.Fatal(err)
			}
			if !surgery.Worked(rounds[0]) {
				rounds = rounds[1:] // round 0 counts when it holds work (a resumed or forked file's)
			}
			mid := rounds[len(rounds)/2].Seq
			for _, budget := range []int64{surgery.AutoBudget, 70_000, 58_000, 0} {
				for _, op := range []string{"revive", "compress-before"} {
					run := st.Store
					run.Limits = surgery.Limits{Budget: budget}
					var m *cairn.Materialization
					if op == "revive" {
						if budget == 0 {
							continue // revive always fits a budget
						}
						m, err = surgery.Revive(ctx, run, id, "", "", cairn.FullFidelity)
					} else {
						m, err = surgery.CompressBefore(ctx, run, id, surgery.Point{Seq: mid}, cairn.FullFidelity)
					}
					if cairn.ErrorCode(err) == cairn.EINVALID && (budget > 0 && budget < 60_000 || budget == 0 && len(rounds) == 1) {
						continue // refused with its figures: a budget too small for the latest steps, or nothing to compress
					}
					if err != nil {
						t.Fatalf("%s --budget %d: %v", op, budget, err)
					}
					hop := surgery.HopLimit(m.Budget)
					if m.Budget == 0 {
						hop = surgery.HopLimit(surgery.DefaultBudget(""))
					}
					checkReachable(t, op, budget, m, rounds, hop)
				}
			}
		})
	}
}

// sharedStore is the store TestEveryStepReachable reads, for its checks.
var sharedStore surgery.Store

func checkReachable(t *testing.T, op string, budget int64, m *cairn.Materialization, rounds []*cairn.Round, hop int64) {
	t.Helper()
	bySeq := map[int]*cairn.Piece{}
	for _, p := range m.Pieces {
		bySeq[p.Round.Seq] = p
	}
	var entries []cairn.IndexEntry
	for _, p := range m.Pieces {
		entries = append(entries, p.Index...)
	}
	var steps, inFull, named, runs int
	for _, r := range rounds {
		p := bySeq[r.Seq]
		if p == nil {
			t.Errorf("%s --budget %d: round %d is not in the output", op, budget, r.Seq)
			continue
		}
		for _, s := range cairn.Steps(r.Blocks, r.LastLine) {
			steps++
			if p.Full && p.Kept(s.FirstLine) {
				inFull++
				continue
			}
			ok := false
			for _, e := range entries {
				if !e.Names(r.Seq, s.Seq) {
					continue
				}
				if e.Tokens <= hop || e.From == s.Seq && e.To == s.Seq {
					ok = true
					if e.From != e.To {
						runs++
					}
					break
				}
			}
			if ok {
				named++
				continue
			}
			t.Errorf("%s --budget %d: step %d.%d is neither in full nor named by an entry that fits %d tokens", op, budget, r.Seq, s.Seq, hop)
		}
	}
	if budget == surgery.AutoBudget {
		checkExpansions(t, op, m, entries)
	}
	t.Logf("%s --budget %-7d: %d steps: %d in full, %d named (%d by runs) · %d tokens (budget %d) · ledger %d items, %d tokens",
		op, budget, steps, inFull, named, runs, surgery.Estimate(m), m.Budget, len(m.Ledger), surgery.LedgerTokens(m.Ledger))
}

// TestReachableSummaryNamesEntries: the summary the agent reads holds
// every entry's line, so what the test above counts is what the agent sees.
func TestReachableSummaryNamesEntries(t *testing.T) {
	st := mustOpenShared(t)
	mustImport(t, st, "../testdata/long")
	ctx := context.Background()
	for _, id := range append(longGenerated(t), longSessions...) {
		run := st.Store
		run.Limits = surgery.Limits{Budget: surgery.AutoBudget}
		m, err := surgery.Revive(ctx, run, id, "", "", cairn.FullFidelity)
		if err != nil {
			t.Fatal(err)
		}
		sum := surgery.Summary(m)
		for _, p := range m.Pieces {
			for _, e := range p.Index {
				if e.From > 0 && !strings.Contains(sum, "- "+e.Line+"\n") {
					t.Errorf("%s: entry %s is not in the summary", short(id), e.Ref())
				}
			}
			if !p.Full && !strings.Contains(sum, "| "+threeDigits(p.Round.Seq)+" |") {
				t.Errorf("%s: round %d has no row in the summary", short(id), p.Round.Seq)
			}
		}
		var md strings.Builder
		if err := export.MaterializationMarkdown(&md, m); err != nil {
			t.Fatal(err)
		}
		for _, it := range m.Ledger {
			if !strings.Contains(sum, "- "+it.Ref()) || !strings.Contains(sum, it.Text) {
				t.Errorf("%s: ledger item %s %q is not in the summary", short(id), it.Ref(), it.Text)
			}
			if !strings.Contains(md.String(), it.Text) {
				t.Errorf("%s: ledger item %s %q is not in the Markdown", short(id), it.Ref(), it.Text)
			}
		}
		for _, p := range m.Pieces {
			for _, e := range p.Index {
				if e.From > 0 && !strings.Contains(md.String(), "- "+e.Line+"\n") {
					t.Errorf("%s: entry %s is not in the Markdown", short(id), e.Ref())
				}
			}
		}
	}
}

func threeDigits(n int) string {
	s := "00" + itoa(n)
	return s[len(s)-3:]
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// checkExpansions: an entry's ref is one `cairn inject` (InjectRef)
// away, and what that prints holds what the entry says it does (every
// run, and one step line in five: each inject reads its whole round).
func checkExpansions(t *testing.T, op string, m *cairn.Materialization, entries []cairn.IndexEntry) {
	t.Helper()
	st := sharedStore
	for i, e := range entries {
		if e.From == 0 || e.From == e.To && i%5 != 0 {
			continue
		}
		ref, err := surgery.ParseRef(e.Ref())
		if err != nil {
			t.Fatalf("%s: entry %q: %v", op, e.Ref(), err)
		}
		x, err := surgery.InjectRef(context.Background(), st, m.Sources[0].ID, ref, cairn.FullFidelity)
		if err != nil {
			t.Fatalf("%s: inject %s: %v", op, e.Ref(), err)
		}
		if got := x.Pieces[0].Tokens; got > e.Tokens+e.Tokens/10+100 || got < e.Tokens-e.Tokens/10-100 {
			t.Errorf("%s: inject %s prints ~%d tokens, its entry says %d", op, e.Ref(), got, e.Tokens)
		}
	}
}
