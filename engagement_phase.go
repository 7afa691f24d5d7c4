package cairn

import (
	"context"
	"strconv"
	"time"
)

// An EngagementPhase is one stage of an engagement: from a named transition
// to the next one (or the engagement's end). The phases of
// .cairn/engagement.md are the timestamp windows that retroactive tagging
// and the engagement × agent matrix go by (seed 001: "rows are engagement
// phases"). An engagement's first phase is named "start" unless named when
// it starts.
type EngagementPhase struct {
	EngagementID string    `json:"engagement"`
	Seq          int       `json:"seq"` // 1 for the first
	Name         string    `json:"name"`
	StartedAt    time.Time `json:"started_at"`
	EndedAt      time.Time `json:"ended_at,omitzero"` // zero while it runs
}

// FirstEngagementPhase names an engagement's first phase when none is
// given.
const FirstEngagementPhase = "start"

// Contains reports whether t falls in the phase's window: at or after its
// start and before its end (an open phase has no end).
func (p EngagementPhase) Contains(t time.Time) bool {
	return !t.Before(p.StartedAt) && (p.EndedAt.IsZero() || t.Before(p.EndedAt))
}

// Key names the phase as ENGAGEMENT/PHASE; a phase name used twice in one
// engagement gets its number: surgery/review#4.
func (p EngagementPhase) Key(all []EngagementPhase) string {
	for _, q := range all {
		if q.EngagementID == p.EngagementID && q.Name == p.Name && q.Seq != p.Seq {
			return p.EngagementID + "/" + p.Name + "#" + strconv.Itoa(p.Seq)
		}
	}
	return p.EngagementID + "/" + p.Name
}

// PhaseAt returns the phase of engagementID whose window holds t, and
// false if none does.
func PhaseAt(phases []EngagementPhase, engagementID string, t time.Time) (EngagementPhase, bool) {
	for _, p := range phases {
		if p.EngagementID == engagementID && p.Contains(t) {
			return p, true
		}
	}
	return EngagementPhase{}, false
}

// EngagementStore keeps the engagements' phases in the store, so the
// matrix and windowed tagging see them on every machine of a team. The
// workspace's engagement.md is their source: each change there is
// mirrored here whole.
type EngagementStore interface {
	// SetEngagementPhases replaces the recorded phases of engagementID
	// with phases (numbered from 1, in time order). Returns EINVALID for
	// an empty engagement ID or a phase without a name or start.
	SetEngagementPhases(ctx context.Context, engagementID string, phases []EngagementPhase) error

	// FindEngagementPhases returns the phases of engagementID, or of every
	// engagement when it is "", by engagement then seq.
	FindEngagementPhases(ctx context.Context, engagementID string) ([]EngagementPhase, error)
}

// ValidateEngagementPhases returns EINVALID if phases cannot be recorded
// for engagementID: what every [EngagementStore] checks.
func ValidateEngagementPhases(engagementID string, phases []EngagementPhase) error {
	if engagementID == "" {
		return Errorf(EINVALID, "Engagement ID required.")
	}
	for i, p := range phases {
		switch {
		case p.Name == "":
			return Errorf(EINVALID, "Engagement %s: phase %d has no name.", engagementID, i+1)
		case p.StartedAt.IsZero():
			return Errorf(EINVALID, "Engagement %s: phase %s has no start time.", engagementID, p.Name)
		case !p.EndedAt.IsZero() && p.EndedAt.Before(p.StartedAt):
			return Errorf(EINVALID, "Engagement %s: phase %s ends before it starts.", engagementID, p.Name)
		}
	}
	return nil
}
