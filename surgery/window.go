package surgery

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn"
)

// A WindowCandidate is a round whose start falls inside an engagement
// phase's window: a candidate for retroactive tagging (seed 001: "the
// engagement.md file's phase history provides the timestamp windows").
type WindowCandidate struct {
	Round *cairn.Round          `json:"round"`
	Phase cairn.EngagementPhase `json:"phase"`
	// Tagged is the engagement the round already has, "" if none.
	Tagged string `json:"tagged,omitempty"`
}

// WindowRounds returns the rounds, across every session (or only
// sessionID's), that started inside the recorded windows of spec:
// ENGAGEMENT (all its phases) or ENGAGEMENT/PHASE (the phases of that
// name). Round 0 (what precedes the first prompt) is never a candidate.
// Returns EINVALID for an empty spec and ENOTFOUND if the engagement has
// no recorded phases or no phase of that name.
func WindowRounds(ctx context.Context, rounds cairn.RoundStore, engagements cairn.EngagementStore, spec, sessionID string) (string, []WindowCandidate, error) {
	id, phase, _ := strings.Cut(strings.TrimSpace(spec), "/")
	if id == "" {
		return "", nil, cairn.Errorf(cairn.EINVALID, "A window is ENGAGEMENT or ENGAGEMENT/PHASE, such as surgery/merge; got %q.", spec)
	}
	all, err := engagements.FindEngagementPhases(ctx, id)
	if err != nil {
		return "", nil, err
	}
	if len(all) == 0 {
		return "", nil, cairn.Errorf(cairn.ENOTFOUND, "Engagement %s has no recorded phases: start it with cairn engagement start %s (its phases are mirrored from .cairn/engagement.md).", id, id)
	}
	var windows []cairn.EngagementPhase
	var names []string
	for _, p := range all {
		names = append(names, p.Name)
		if phase == "" || p.Name == phase || p.Key(all) == id+"/"+phase {
			windows = append(windows, p)
		}
	}
	if len(windows) == 0 {
		return "", nil, cairn.Errorf(cairn.ENOTFOUND, "Engagement %s has no phase %q; its phases: %s.", id, phase, strings.Join(names, ", "))
	}
	var out []WindowCandidate
	for _, w := range windows {
		found, err := rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sessionID, Since: w.StartedAt, Until: w.EndedAt})
		if err != nil {
			return "", nil, err
		}
		for _, r := range found {
			if r.Seq == 0 {
				continue
			}
			out = append(out, WindowCandidate{Round: r, Phase: w, Tagged: r.EngagementID})
		}
	}
	return id, out, nil
}
