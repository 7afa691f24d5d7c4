package inscribe

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn"
)

// StatusDropped is a file not read because the store lets its session go:
// the session was dropped on purpose (`cairn prune`) and the file has not
// changed since, or the file last changed before the store's keep setting.
const StatusDropped = "dropped"

// keeps reports why the store would not keep the session s read from a
// file last changed at mod, or "" if it keeps it: the session was dropped
// and the file has not changed since, or it is older than the keep
// setting. A file that changed after its session was dropped is read again
// whole: the session goes on.
func (im *Importer) keeps(ctx context.Context, s *cairn.Session, mod time.Time) (string, error) {
	if im.Keep == nil {
		return "", nil
	}
	at, err := im.Keep.Dropped(ctx, s.ID)
	switch {
	case err == nil && !mod.After(at):
		return "dropped on purpose " + at.UTC().Format(time.DateOnly) + " (cairn prune); unchanged since", nil
	case err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND:
		return "", err
	}
	days, err := im.keepDays(ctx)
	if err != nil {
		return "", err
	}
	if cutoff := cairn.KeepCutoff(im.now(), days); mod.Before(cutoff) {
		if _, err := im.Store.FindSource(ctx, s.ID); cairn.ErrorCode(err) == cairn.ENOTFOUND {
			return "last changed " + mod.UTC().Format(time.DateOnly) + ", before the store's keep setting of " + plural(days, "day"), nil
		}
	}
	return "", nil
}

// keepDays reads the store's keep setting once an importer.
func (im *Importer) keepDays(ctx context.Context) (int, error) {
	im.keepOnce.Do(func() { im.keepN, im.keepErr = im.Keep.KeepDays(ctx) })
	return im.keepN, im.keepErr
}

func (im *Importer) now() time.Time {
	if im.Now != nil {
		return im.Now()
	}
	return time.Now()
}

// Prune drops the sessions last active before cutoff (see
// [cairn.Prunable]) and returns them, newest first; with dryRun it only
// returns them. Dropped sessions are remembered at now, so an import of
// their unchanged files skips them.
func Prune(ctx context.Context, sessions cairn.SessionStore, keep cairn.KeepStore, cutoff, now time.Time, dryRun bool) ([]*cairn.Session, error) {
	all, _, err := sessions.FindSessions(ctx, cairn.SessionFilter{Subagents: true})
	if err != nil {
		return nil, err
	}
	drop := cairn.Prunable(all, cutoff)
	if dryRun || len(drop) == 0 {
		return drop, nil
	}
	ids := make([]string, len(drop))
	for i, s := range drop {
		ids[i] = s.ID
	}
	return drop, keep.DropSessions(ctx, ids, now)
}
