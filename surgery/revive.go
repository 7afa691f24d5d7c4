package surgery

import (
	"context"

	"github.com/cairn-dev/cairn"
)

// Revive returns what revive gives a fresh agent: the session with the
// rounds of engagement compressed when engagement is set; else the rounds
// before before (a round number or a time, see [ParsePoint]) when it is
// set; else the whole session, for the budget to condense oldest first.
// Returns EINVALID if both engagement and before are set.
//
// The result always fits a budget: st's, or the default one (half the
// model's window) when st has none, and that budget alone ([BudgetRule]):
// it is lighter than what the client loads for the session today only
// when that is itself over the budget. A session the client compacted
// shortly before it ended loads as a small remnant, which is no ceiling:
// revive exists to bring back what the remnant lost. Its operation is
// revive.
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

// reviveBy fits what op makes of the session in revive's budget: st's, or
// the default for the session's model.
func reviveBy(ctx context.Context, st Store, session string, op func(Store) (*cairn.Materialization, error)) (*cairn.Materialization, error) {
	if st.Limits.Budget <= 0 {
		s, err := st.Sessions.FindSessionByID(ctx, session)
		if err != nil {
			return nil, err
		}
		fc, err := st.facts(ctx, s)
		if err != nil {
			return nil, err
		}
		st.Limits.Budget = DefaultBudget(fc.model)
	}
	st.reviving = true
	m, err := op(st)
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
	// No cut: the budget decides, oldest first (round 0 with work too), so
	// the recent steps stay.
	m, _, err := compressBefore(ctx, st, session, Point{}, f)
	return m, err
}

// BudgetRule is the default budget in the words every edge shows (`-h`,
// the README, advise, the viewer): one rule for every operation, revive's
// included.
const BudgetRule = "half the model's window (100,000 tokens; 500,000 for a 1m model)"

// ShareBudget is the budget that holds the client's overhead and share of
// the conversation orig ([Resume]) holds, with the sixteenth every fit
// keeps for the client's additions: the retention/size curve's cuts.
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
