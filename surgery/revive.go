package surgery

import (
	"context"

	"cairn"
)

// Revive returns what revive gives a fresh agent: the session with the
// rounds of engagement compressed when engagement is set; else the rounds
// before before (a round number or a time, see [ParsePoint]) when it is
// set; else all but the recent quarter of the session (see [RecentCut]).
// Returns EINVALID if both engagement and before are set.
func Revive(ctx context.Context, st Store, session, before, engagement string, f cairn.Fidelity) (*cairn.Materialization, error) {
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
		return CompressBefore(ctx, st, session, p, f)
	}
	p, err := RecentCut(ctx, st, session)
	if err != nil {
		return nil, err
	}
	return CompressBefore(ctx, st, session, p, f)
}
