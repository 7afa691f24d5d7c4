package cairn

import (
	"context"
	"time"
)

// A KeepStore drops sessions from a store on purpose: the one exception to
// the block store's append-only rule, asked for by a person (`cairn prune`,
// or the store's keep setting that `cairn import` applies). It remembers
// what it dropped, so that an import of the same transcript does not bring
// it back unless the file changed afterwards.
type KeepStore interface {
	// KeepDays returns the store's keep setting: sessions last active more
	// than this many days ago are dropped by prune and import. 0 keeps
	// every session.
	KeepDays(ctx context.Context) (int, error)

	// SetKeepDays records the keep setting; 0 keeps every session.
	// Returns EINVALID for a negative number.
	SetKeepDays(ctx context.Context, days int) error

	// DropSessions deletes each session and everything inscribed of it
	// (its lines, rounds, blocks, usage, search entries and tags), one
	// transaction a session, and records it as dropped at at. Frames the
	// session pushed stay: they are the workspace's. A session that does
	// not exist is skipped.
	DropSessions(ctx context.Context, ids []string, at time.Time) error

	// Dropped returns when a session was dropped. Returns ENOTFOUND if it
	// never was, or if it was inscribed again since.
	Dropped(ctx context.Context, id string) (time.Time, error)
}

// LastActive is when a session was last active: its end, else its start,
// else when it was stored.
func (s *Session) LastActive() time.Time {
	switch {
	case !s.EndedAt.IsZero():
		return s.EndedAt
	case !s.StartedAt.IsZero():
		return s.StartedAt
	}
	return s.UpdatedAt
}

// KeepCutoff is the oldest last activity a keep setting of days lets stay
// in the store at now; the zero time for 0 (keep everything).
func KeepCutoff(now time.Time, days int) time.Time {
	if days <= 0 {
		return time.Time{}
	}
	return now.AddDate(0, 0, -days)
}

// Prunable returns the sessions a store keeping what was active at or
// after cutoff drops: those last active before it, and the sub-agents of
// a dropped session whatever their own age, while a sub-agent of a kept
// session stays (it is read through its parent). Sessions come in the
// order given.
func Prunable(sessions []*Session, cutoff time.Time) []*Session {
	if cutoff.IsZero() {
		return nil
	}
	stored := map[string]bool{}
	for _, s := range sessions {
		stored[s.ID] = true
	}
	// A sub-agent goes with its parent when the parent is stored, else by
	// its own age.
	byParent := func(s *Session) bool { return s.IsSubagent() && stored[s.Parent] }
	dropped := map[string]bool{}
	for _, s := range sessions {
		if !byParent(s) && s.LastActive().Before(cutoff) {
			dropped[s.ID] = true
		}
	}
	var out []*Session
	for _, s := range sessions {
		if dropped[s.ID] || byParent(s) && dropped[s.Parent] {
			out = append(out, s)
		}
	}
	return out
}
