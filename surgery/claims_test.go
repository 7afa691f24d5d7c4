package surgery_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

// TestHeaderClaims (issue 41 b): every claim the header a resumed agent
// reads makes about the output is checked against the output, over every
// long session (each shape of testdata/long and the public ones), revive
// and compress-before, and budgets from the least that fits to none: that
// nothing is lost and in which forms what is not in full is named (each
// form named is used, each form used is named), that every round follows
// in full, the budget and the size within it, how many rounds are in runs
// of rounds, how many rounds follow in full.
func TestHeaderClaims(t *testing.T) {
	st := mustOpenShared(t)
	mustImport(t, st, "../testdata/long")
	ctx := context.Background()
	budgets := []int64{surgery.AutoBudget, 47_000, 49_000, 52_000, 56_000, 62_000, 75_000, 90_000, 150_000, 400_000, 0}
	checked := 0
	for _, id := range append(longGenerated(t), longSessions...) {
		all, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: id, WithBlocks: true})
		if err != nil {
			t.Fatal(err)
		}
		var rounds []*cairn.Round
		for _, r := range all {
			if surgery.Worked(r) {
				rounds = append(rounds, r)
			}
		}
		mid := rounds[len(rounds)/2].Seq
		for _, budget := range budgets {
			for _, op := range []string{"revive", "revive --before-compaction index", "compress-before"} {
				run := st.Store
				run.Limits = surgery.Limits{Budget: budget}
				var m *cairn.Materialization
				switch op {
				case "compress-before":
					m, err = surgery.CompressBefore(ctx, run, id, surgery.Point{Seq: mid}, cairn.FullFidelity)
				default:
					if budget == 0 {
						continue
					}
					if strings.Contains(op, "index") {
						run.Limits.BeforeCompaction = surgery.BeforeIndex
					}
					m, err = surgery.Revive(ctx, run, id, "", "", cairn.FullFidelity)
				}
				if cairn.ErrorCode(err) == cairn.EINVALID {
					continue // refused with its figures
				}
				if err != nil {
					t.Fatalf("%s %s --budget %d: %v", short(id), op, budget, err)
				}
				for _, f := range falseClaims(m, rounds) {
					t.Errorf("%s %s --budget %d: %s", short(id), op, budget, f)
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d outputs checked", checked)
	}
	t.Logf("%d outputs checked", checked)
}

// falseClaims returns the header's claims about m that its output does not
// bear out; rounds are the session's (with blocks, round 0 when worked).
func falseClaims(m *cairn.Materialization, rounds []*cairn.Round) []string {
	sum := surgery.Summary(m)
	var out []string
	bad := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }

	// How the output names each step it does not keep in full.
	byRound := map[int]*cairn.Piece{}
	for _, p := range m.Pieces {
		byRound[p.Round.Seq] = p
	}
	inRuns := map[int]bool{}
	for _, e := range m.RoundRuns {
		for s := e.Round; s <= e.Through; s++ {
			inRuns[s] = true
		}
	}
	inFrames := map[int]bool{}
	for _, c := range m.Collapsed {
		for _, s := range c.Rounds {
			inFrames[s] = true
		}
	}
	used := map[string]bool{}
	unnamed := 0
	for _, r := range rounds {
		p := byRound[r.Seq]
		if p == nil {
			if inRuns[r.Seq] {
				used["round runs"] = true
			} else if inFrames[r.Seq] {
				used["frames"] = true
			} else {
				unnamed++
			}
			continue
		}
		for _, s := range cairn.Steps(r.Blocks, r.LastLine) {
			if p.Full && p.Kept(s.FirstLine) {
				continue
			}
			form := ""
			for _, e := range p.Index {
				switch {
				case e.From == 0 || !e.Names(r.Seq, s.Seq):
				case e.From == e.To:
					form = "steps"
				case form == "":
					form = "step runs"
				}
			}
			if form == "" && !p.Full {
				form = "rows"
			}
			if form == "" {
				unnamed++
				continue
			}
			used[form] = true
		}
	}
	claims := map[string]string{
		"steps":      "a step by its ROUND.STEP",
		"step runs":  "a run of steps by its span",
		"rows":       "a round by its row",
		"round runs": "the oldest rounds in runs",
		"frames":     "a finished frame's rounds",
	}
	head := strings.SplitN(sum, "\n", 3)[1]
	switch {
	case strings.HasPrefix(head, "Nothing is lost"):
		if unnamed > 0 {
			bad("says nothing is lost; %d steps or rounds are neither in full nor named", unnamed)
		}
		for form, words := range claims {
			if used[form] != strings.Contains(head, words) {
				bad("the header's forms (%q) and the output's (%s: used %v) differ", head, form, used[form])
			}
		}
	case strings.HasPrefix(head, "Every round of it follows below"):
		if len(used) > 0 || unnamed > 0 || len(m.IndexRounds()) > 0 {
			bad("says every round follows in full; %d index rounds, forms %v", len(m.IndexRounds()), used)
		}
	case strings.HasPrefix(head, "This is a chosen part"):
		if surgery.Whole(m) {
			bad("says a chosen part of a session it names whole")
		}
	default:
		bad("no claim on what is named: %q", head)
	}
	if b := regexp.MustCompile(`fitted in a budget of (\d+) tokens`).FindStringSubmatch(sum); b != nil {
		n, _ := strconv.ParseInt(b[1], 10, 64)
		if n != m.Budget || surgery.Estimate(m) > n {
			bad("says a budget of %d; the budget is %d and the output %d tokens", n, m.Budget, surgery.Estimate(m))
		}
	} else if m.Budget > 0 {
		bad("no budget said; it is %d", m.Budget)
	}
	if d := regexp.MustCompile(`The (\d+) oldest rounds, too many for a row each`).FindStringSubmatch(sum); d != nil {
		n, _ := strconv.Atoi(d[1])
		if n != len(inRuns) || n != m.Dropped {
			bad("says %d rounds in runs; the runs hold %d", n, len(inRuns))
		}
	} else if len(inRuns) > 0 {
		bad("%d rounds in runs, and the header does not say so", len(inRuns))
	}
	if i := strings.Index(sum, "\nRounds in full follow, in this order:\n"); i >= 0 {
		listed := strings.Count(sum[i:], "\n") - 2
		if listed != len(m.FullPieces()) {
			bad("lists %d rounds in full; %d follow", listed, len(m.FullPieces()))
		}
	}
	return out
}
