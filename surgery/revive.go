package surgery

import (
	"context"

	"cairn"
)

// Revive returns what revive gives a fresh agent: the session with the
// rounds of engagement compressed when engagement is set; else the rounds
// before before (a round number or a time, see [ParsePoint]) when it is
// set; else the whole session, for the budget to condense oldest first.
// Returns EINVALID if both engagement and before are set.
//
// The result always fits a budget: st's, or the default one (half the
// model's window) when st has none, and at most the recent half of what the
// client loads for the session today (see [Resume]) when that is smaller, so
// a successor always starts lighter. Its operation is revive.
func Revive(ctx context.Context, st Store, session, before, engagement string, f cairn.Fidelity) (*cairn.Materialization, error) {
	return reviveBy(ctx, st, session, func(st Store) (*cairn.Materialization, error) {
		return revive(ctx, st, session, before, engagement, f)
	})
}

// ReviveFrames is [Revive] of the session shaped as [CompressFrames] shapes
// it: each finished frame among frames stands as one entry, its results,
// in place of its rounds, and the rest fits revive's budget. Returns
// EINVALID if no round of the session was worked under a finished frame.
func ReviveFrames(ctx context.Context, st Store, session string, frames []*cairn.Frame, f cairn.Fidelity) (*cairn.Materialization, error) {
	return reviveBy(ctx, st, session, func(st Store) (*cairn.Materialization, error) {
		return CompressFrames(ctx, st, session, frames, f)
	})
}

// reviveBy fits what op makes of the session in revive's budget.
func reviveBy(ctx context.Context, st Store, session string, op func(Store) (*cairn.Materialization, error)) (*cairn.Materialization, error) {
	orig, err := Resume(ctx, st, session)
	if err != nil {
		return nil, err
	}
	budget := st.Limits.Budget
	if budget <= 0 {
		fc, err := st.facts(ctx, orig.Sources[0])
		if err != nil {
			return nil, err
		}
		budget = DefaultBudget(fc.model)
	}
	// A successor starts lighter than its predecessor: the recent half of
	// what the client loads today at most, the rest as index lines.
	// The fit keeps a sixteenth of a budget for the client's additions,
	// which resuming the original carries too: the half is asked with it.
	// When even the half does not fit (the latest steps are most of it),
	// the least that is still lighter, then the budget itself.
	st.loads = Estimate(orig)
	now := Estimate(orig) * 16 / 15
	half := ShareBudget(orig, ReviveShare)
	var m *cairn.Materialization
	for _, b := range []int64{half, (half + now) / 2, now - 1, budget} {
		if b > budget || b <= 0 {
			continue
		}
		st.Limits.Budget = b
		m, err = op(st)
		if cairn.ErrorCode(err) != cairn.EINVALID || b == budget {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	m.Args = append([]string{m.Operation}, m.Args...)
	m.Operation = cairn.OpRevive
	// The summary names the operation: the size is of what is written.
	m.Tokens = Estimate(m)
	return m, nil
}

func revive(ctx context.Context, st Store, session, before, engagement string, f cairn.Fidelity) (*cairn.Materialization, error) {
	switch {
	case before != "" && engagement != "":
		return nil, cairn.Errorf(cairn.EINVALID, "Revive compresses before a point or an engagement, not both.")
	case engagement != "":
		return CompressEngagement(ctx, st, session, engagement, f)
	case before != "":
		p, err := ParsePoint(before)
		if err != nil {
			return nil, err
		}
		m, _, err := compressBefore(ctx, st, session, p, f)
		return m, err
	}
	// No cut: the budget decides, oldest first, so the recent steps stay.
	m, _, err := compressBefore(ctx, st, session, Point{Seq: 1}, f)
	return m, err
}

// ReviveShare is the share of the conversation the client loads today that
// revive keeps by default, besides the client's own overhead: chosen on
// the long sessions with `cairn eval retention --curve` (README: What
// surgery keeps).
const ReviveShare = 0.5

// BudgetRule is the default budget in the words every edge shows (`-h`,
// the README, advise, the viewer): one rule for every operation, and the
// lighter start revive adds.
const BudgetRule = "half the model's window (100,000 tokens; 500,000 for a 1m model); revive also at most the client's own overhead plus half the conversation it loads today, so a successor starts lighter"

// ShareBudget is the budget that holds the client's overhead and share of
// the conversation orig ([Resume]) holds, with the sixteenth every fit
// keeps for the client's additions.
func ShareBudget(orig *cairn.Materialization, share float64) int64 {
	conv := Estimate(orig) - orig.Overhead
	return (orig.Overhead + int64(float64(conv)*share)) * 16 / 15
}

// opResume names the materialization the client itself loads: see [Resume].
const opResume = "resume"

// Resume returns what the client sends when it resumes the session as it
// is: every round in full from its last compaction on, the client's summary
// for what came before; no budget. Its [Estimate] is the session's
// occupancy, the figure advice starts from, counted with the overhead of
// st's [Limits].Client, so an output for that client compares with it.
//
// Its pieces carry no lines or blocks: it is a size.
func Resume(ctx context.Context, st Store, session string) (*cairn.Materialization, error) {
	s, rounds, err := st.load(ctx, session)
	if err != nil {
		return nil, err
	}
	st.Limits = Limits{Client: st.Limits.Client}
	m := newMaterialization(opResume, cairn.FullFidelity, []*cairn.Session{s}, s.ID)
	for _, r := range rounds {
		m.Pieces = append(m.Pieces, &cairn.Piece{Round: r, Full: true})
	}
	st.sizeOnly = true
	return m, st.materialize(ctx, m)
}
