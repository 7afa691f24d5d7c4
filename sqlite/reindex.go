package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"iter"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/cairn-dev/cairn"
)

// ReindexSession implements [cairn.InscriptionStore]: a session of at most
// stageBlocks blocks in one transaction that reads its lines, a larger
// one staged ([InscriptionStore.reindexStaged]), and under the write lock
// after stagedAttempts attempts that imports overtook.
func (s *InscriptionStore) ReindexSession(ctx context.Context, sess *cairn.Session, rebuild func(*cairn.Session, []*cairn.Line) (*cairn.Inscription, error)) (err error) {
	defer s.db.explain(&err)
	// What killed writers left, of any session (one never stored too), and
	// what a staged reindex orphaned, once it is done.
	if err := s.Sweep(ctx); err != nil {
		return err
	}
	defer func() {
		if err == nil {
			err = s.Sweep(ctx)
		}
	}()
	rtx, err := s.db.read(ctx)
	if err != nil {
		return err
	}
	var n int
	err = rtx.QueryRowContext(ctx, `SELECT COUNT(*) FROM blocks WHERE session_num = `+numOf, sess.ID).Scan(&n)
	rtx.Rollback()
	if err != nil {
		return err
	}
	if n > stageBlocks {
		for range stagedAttempts {
			if err := s.reindexStaged(ctx, sess, rebuild); !errors.Is(err, cairn.ErrStale) {
				return err
			}
		}
		// Imports keep moving the session on: rebuild it under the write
		// lock, which they then wait for.
	}
	return s.reindexInOne(ctx, sess, rebuild)
}

// Reread implements [cairn.InscriptionStore].
func (s *InscriptionStore) Reread(ctx context.Context, id string) (err error) {
	defer s.db.explain(&err)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET src_offset = 0, src_lines = 0, head_hash = NULL, tail_hash = NULL, src_sum = NULL WHERE id = ?`, id); err != nil {
		return err
	}
	return tx.Commit()
}

// stagedAttempts bounds how often reindex stages a huge session's blocks
// anew after an import moved the session on.
const stagedAttempts = 3

// reindexInOne rebuilds a session's index in one transaction, which reads
// its lines: what a session of at most stageBlocks blocks takes.
func (s *InscriptionStore) reindexInOne(ctx context.Context, sess *cairn.Session, rebuild func(*cairn.Session, []*cairn.Line) (*cairn.Inscription, error)) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	lines, err := findLines(ctx, tx, sess.ID, 0, 0)
	if err != nil {
		return err
	}
	in, err := rebuild(sess, lines)
	if err != nil {
		return given{err}
	}
	if err := deleteIndex(ctx, tx, sess.ID); err != nil {
		return err
	}
	if err := updateLineMeta(ctx, tx, sess.ID, lines); err != nil {
		return err
	}
	if err := insertRounds(ctx, tx, in.Rounds); err != nil {
		return err
	}
	if err := insertBlocks(ctx, tx, in.AllBlocks(), newLineSource(sess.ID, lines)); err != nil {
		return err
	}
	if err := finishReindex(ctx, tx, sess.ID, in); err != nil {
		return err
	}
	return tx.Commit()
}

// reindexStaged rebuilds one huge session's index from the lines it reads, as
// Inscribe writes: the blocks of a huge session are staged, stageBlocks to
// a transaction, so that its transaction does not hold the write lock
// for seconds (a message of a million blocks held it 21 s); that
// transaction checks that no import moved the session on since its lines
// were read (else cairn.ErrStale, and the caller reads again), replaces
// the index and makes the staged blocks visible, at once; the old blocks
// of such a session it hides, and deletes them after ([hide]).
func (s *InscriptionStore) reindexStaged(ctx context.Context, sess *cairn.Session, rebuild func(*cairn.Session, []*cairn.Line) (*cairn.Inscription, error)) (err error) {
	rtx, err := s.db.read(ctx)
	if err != nil {
		return err
	}
	pos, err := position(ctx, rtx, sess.ID)
	var lines []*cairn.Line
	var old []int64
	if err == nil {
		lines, err = findLines(ctx, rtx, sess.ID, 0, 0)
	}
	if err == nil {
		// The blocks readers see, not those imports are staging: a
		// staging abandoned and deleted meanwhile frees the highest ids
		// for this reindex's own blocks, which the range hidden would
		// then cover.
		old, err = blockIDs(ctx, rtx, sess.ID, 0, math.MaxInt64, true)
	}
	rtx.Rollback()
	if err != nil {
		return err
	}
	in, err := rebuild(sess, lines)
	if err != nil {
		return given{err}
	}
	src := newLineSource(sess.ID, lines)
	next, stop := iter.Pull(in.AllBlocks())
	defer stop()
	var steps cairn.StepCounter
	var st *staging
	pending, more := pullBlocks(next)
	for more {
		if st == nil {
			st = &staging{token: strconv.FormatInt(rand.Int64(), 36)}
			defer func() {
				if err != nil {
					_ = s.dropStaged(context.WithoutCancel(ctx), sess.ID, st.token)
				}
			}()
		}
		if err := s.stage(ctx, sess.ID, st, pending, &steps, src); err != nil {
			return err
		}
		pending, more = pullBlocks(next)
	}
	if st != nil {
		st.wait()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if now, err := position(ctx, tx, sess.ID); err != nil {
		return err
	} else if now != pos {
		// The old blocks are no longer those read: an import moved on.
		return cairn.ErrStale
	}
	// The old blocks, those read with the lines (no import moved the
	// session on since), are hidden here and deleted after, a part to a
	// transaction; the rounds and messages go now.
	token, hidden := "", strconv.FormatInt(rand.Int64(), 36)+"-old"
	if st != nil {
		token, hidden = st.token, st.token+"-old"
	}
	if err := orphanStaging(ctx, tx, sess.ID, token); err != nil {
		return err
	}
	if err := hide(ctx, tx, sess.ID, hidden, old); err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM rounds WHERE session_id = ?`, `DELETE FROM messages WHERE session_num = ` + numOf} {
		if _, err := tx.ExecContext(ctx, q, sess.ID); err != nil {
			return err
		}
	}
	if err := updateLineMeta(ctx, tx, sess.ID, lines); err != nil {
		return err
	}
	if err := insertRounds(ctx, tx, in.Rounds); err != nil {
		return err
	}
	if _, _, err := writeBlocks(ctx, tx, func(yield func([]*cairn.Block) bool) {
		for _, b := range pending {
			if !yield(b) {
				return
			}
		}
	}, &steps, src); err != nil {
		return err
	}
	if err := finishReindex(ctx, tx, sess.ID, in); err != nil {
		return err
	}
	if st != nil {
		if err := st.publish(ctx, tx, sess.ID); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return s.dropRanges(ctx, sess.ID, hidden, stageGap, old)
}

// orphanStaging makes, in tx, the blocks that imports of session id are
// staging (every staged range but token's and hidden ones) old blocks
// for the next import of the session to delete, so that those imports
// find them gone and start over (cairn.ErrStale) rather than publish a
// version beside the one the reindex rebuilt: an import's position check
// does not see a reindex, which moves no position.
func orphanStaging(ctx context.Context, tx *Tx, id, token string) error {
	_, err := tx.ExecContext(ctx, `UPDATE staged_blocks SET token = token || '-old'
		WHERE session_num = `+numOf+` AND token != ?2 AND token NOT LIKE '%-old'`, id, token)
	return err
}

// finishReindex writes, in tx, what a reindex of session id rebuilt beside
// its blocks: its messages' usage, its rounds' sums of it, and the
// session's title, project, version, agent and totals.
func finishReindex(ctx context.Context, tx *Tx, id string, in *cairn.Inscription) error {
	if err := insertMessages(ctx, tx, id, in.Messages); err != nil {
		return err
	}
	if err := refreshRoundUsage(ctx, tx, id, 0); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ?, project = ?, version = ?, agent = COALESCE(NULLIF(?, ''), agent) WHERE id = ?`,
		in.Session.Title, in.Session.Project, in.Session.Version, in.Session.Agent, id); err != nil {
		return err
	}
	return refreshSession(ctx, tx, id, 0, nil)
}

// A sourcePosition is how far a session's transcript was inscribed: what
// an import moves on.
type sourcePosition struct {
	generation, lines int
	offset            int64
}

func position(ctx context.Context, tx *Tx, id string) (sourcePosition, error) {
	var p sourcePosition
	err := tx.QueryRowContext(ctx, `SELECT generation, src_lines, src_offset FROM sessions WHERE id = ?`, id).Scan(&p.generation, &p.lines, &p.offset)
	if errors.Is(err, sql.ErrNoRows) {
		return p, cairn.Errorf(cairn.ENOTFOUND, "No session %q.", id)
	}
	return p, err
}
