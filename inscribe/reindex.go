package inscribe

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

// A ReindexStore is what [Reindex] needs of a store: its sessions, and the
// rebuild of one.
type ReindexStore interface {
	FindSessions(ctx context.Context, filter cairn.SessionFilter) ([]*cairn.Session, int, error)
	ReindexSession(ctx context.Context, s *cairn.Session, rebuild func(*cairn.Session, []*cairn.Line) (*cairn.Inscription, error)) error
	Reread(ctx context.Context, sessionID string) error
}

// Reindex first sweeps store, when it is a [Sweeper], then rebuilds the
// index of every session in store, sub-agents'
// included, one at a time, from its stored lines with rebuild (see
// [Rebuild]), calling progress, when set, after each. A session whose
// stored lines cannot be read back ([cairn.Damaged]) keeps its index and
// is set to be read again whole, as a new generation, by the next import
// of its file ([cairn.InscriptionStore.Reread]); the others are rebuilt
// all the same, and the error, EINTERNAL, names the store (name, such as
// "the store PATH"), each damaged session, its lost lines and the file to
// import. Any other error stops it.
func Reindex(ctx context.Context, store ReindexStore, name string, rebuild func(*cairn.Session, []*cairn.Line) (*cairn.Inscription, error), progress func(done, total int)) error {
	if err := sweep(ctx, store); err != nil {
		return err
	}
	sessions, _, err := store.FindSessions(ctx, cairn.SessionFilter{Subagents: true})
	if err != nil {
		return err
	}
	var damaged []string
	for i, sess := range sessions {
		var d *cairn.Damaged
		err := store.ReindexSession(ctx, sess, rebuild)
		switch {
		case errors.As(err, &d):
			if err := store.Reread(ctx, sess.ID); err != nil {
				return err
			}
			damaged = append(damaged, d.Lost()+"; run `cairn import "+sess.Path+"` to store it again as a new generation (if that file is gone, those lines are lost)")
		case err != nil:
			return fmt.Errorf("reindex %s: %w", sess.ID, err)
		}
		if progress != nil {
			progress(i+1, len(sessions))
		}
	}
	if len(damaged) > 0 {
		return cairn.Errorf(cairn.EINTERNAL, "Reindexed %d of %d sessions; %s holds damaged bytes: %s.",
			len(sessions)-len(damaged), len(sessions), name, strings.Join(damaged, "; "))
	}
	return nil
}

// Rebuild returns the index of a session rebuilt from all its lines, for
// [Reindex].
func Rebuild(format cairn.Transcript) func(*cairn.Session, []*cairn.Line) (*cairn.Inscription, error) {
	return func(s *cairn.Session, lines []*cairn.Line) (*cairn.Inscription, error) {
		sess := *s
		sess.Title = ""
		b := format.NewBuilder(&sess, 0)
		for _, l := range lines {
			b.Add(l)
		}
		rounds, blocks, msgs := b.Finish()
		return &cairn.Inscription{Session: &sess, Lines: lines, Rounds: rounds, BlockSeq: blocks, Messages: msgs}, nil
	}
}
