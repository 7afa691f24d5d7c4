package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"cairn"
)

// Staged blocks. A batch is one transaction (AGENTS.md, rule 3), but the
// blocks of one huge message (a million) took that transaction 20 s to
// write with their search entries, holding the store's write lock from
// every other import. Past stageBlocks, an inscription's blocks are
// written first, stageBlocks to a transaction, with the write lock let go
// for stageGap between two of them; each transaction lists the ids it
// gave in staged_blocks (migration 0011), and every query of blocks skips
// them ([unstaged]). The batch's own transaction then writes the rest and
// deletes its staged_blocks rows: the round appears whole, at once, or not
// at all. A crash or a lost race leaves staged rows that no reader sees
// and that the next import of the session deletes ([InscriptionStore.dropStaged]).

// stageBlocks is how many blocks one staging transaction writes: about
// 0.3 s of the write lock on a busy machine. An inscription of at most
// this many blocks is written in one transaction, as always.
var stageBlocks = 16 << 10 // a variable for tests

// stageGap is how long an import leaves the write lock free between two
// of its staging transactions: longer than the longest sleep of SQLite's
// busy handler (100 ms), so that a writer waiting for the lock gets it.
var stageGap = 110 * time.Millisecond

// unstaged is the condition, on blocks b, that a block is not staged.
// staged_blocks is empty but for the time an import of a huge message
// runs: the condition costs a lookup in an empty index.
const unstaged = `NOT EXISTS (SELECT 1 FROM staged_blocks p WHERE p.session_num = b.session_num AND p.lo <= b.id AND b.id <= p.hi)`

// A staging is one inscription's staged blocks.
type staging struct {
	token string // its rows' in staged_blocks
	rows  int    // how many rows it wrote
	first int64  // the first id it gave
	done  time.Time
}

// pullBlocks pulls slices of blocks from next until it holds more than
// stageBlocks of them or next is done, and reports whether next may hold
// more.
func pullBlocks(next func() ([]*cairn.Block, bool)) (pulled [][]*cairn.Block, more bool) {
	n := 0
	for n <= stageBlocks {
		b, ok := next()
		if !ok {
			return pulled, false
		}
		pulled, n = append(pulled, b), n+len(b)
	}
	return pulled, true
}

// wait sleeps for what is left of stageGap since the last staging
// transaction.
func (st *staging) wait() {
	if !st.done.IsZero() {
		time.Sleep(time.Until(st.done.Add(stageGap)))
	}
}

// stage writes blocks in a transaction of their own, as staged blocks of
// session id.
func (s *InscriptionStore) stage(ctx context.Context, id string, st *staging, blocks [][]*cairn.Block, steps *cairn.StepCounter, src *lineSource) error {
	st.wait()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	lo, hi, err := writeBlocks(ctx, tx, func(yield func([]*cairn.Block) bool) {
		for _, b := range blocks {
			if !yield(b) {
				return
			}
		}
	}, steps, src)
	if err != nil || lo == 0 {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO staged_blocks (session_num, token, lo, hi) VALUES (`+numOf+`, ?2, ?3, ?4)`, id, st.token, lo, hi); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if st.rows == 0 {
		st.first = lo
	}
	st.rows++
	st.done = time.Now()
	return nil
}

// publish makes st's blocks visible, in the transaction of the batch
// they belong to. Were some dropped meanwhile (by another import of the
// session, which found them left over), the batch is stale: the import
// starts over.
func (st *staging) publish(ctx context.Context, tx *Tx, id string) error {
	res, err := tx.ExecContext(ctx, `DELETE FROM staged_blocks WHERE session_num = `+numOf+` AND token = ?2`, id, st.token)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(st.rows) {
		if err == nil {
			err = fmt.Errorf("%d of %d staged block ranges: %w", n, st.rows, cairn.ErrStale)
		}
		return err
	}
	return nil
}

// dropStaged deletes the staged blocks of session id, with their search
// entries: those of the staging token, or, if token is "", every one (an
// import of the session is about to start: any staged block is a lost
// import's). One range to a transaction, each the size a staging
// transaction wrote.
func (s *InscriptionStore) dropStaged(ctx context.Context, id, token string) error {
	return s.dropRanges(ctx, id, token, 0)
}

// dropRanges deletes the staged ranges dropStaged deletes, leaving the
// write lock free for gap between two.
func (s *InscriptionStore) dropRanges(ctx context.Context, id, token string, gap time.Duration) error {
	for first := true; ; first = false {
		if !first && gap > 0 {
			time.Sleep(gap)
		}
		tx, err := s.db.read(ctx)
		if err != nil {
			return err
		}
		var lo, hi int64
		err = tx.QueryRowContext(ctx, `SELECT lo, hi FROM staged_blocks WHERE session_num = `+numOf+` AND (token = ?2 OR ?2 = '') LIMIT 1`, id, token).Scan(&lo, &hi)
		tx.Rollback()
		if errors.Is(err, sql.ErrNoRows) {
			return nil // nothing (left) to drop
		} else if err != nil {
			return err
		}
		if err := s.dropRange(ctx, id, lo, hi); err != nil {
			return err
		}
	}
}

func (s *InscriptionStore) dropRange(ctx context.Context, id string, lo, hi int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{
		`DELETE FROM blocks_fts WHERE rowid IN (SELECT id FROM blocks WHERE id BETWEEN ?2 AND ?3 AND session_num = ` + numOf + ` AND searchable = 1)`,
		`DELETE FROM blocks WHERE id BETWEEN ?2 AND ?3 AND session_num = ` + numOf,
		`DELETE FROM staged_blocks WHERE session_num = ` + numOf + ` AND lo = ?2 AND hi = ?3`,
	} {
		if _, err := tx.ExecContext(ctx, q, id, lo, hi); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// hide makes the blocks of session id whose ids are below below invisible
// to every reader, in tx, the transaction that makes their replacements
// visible: they become staged ranges of token, each of at most stageBlocks
// ids, which dropRanges then deletes, a range to a transaction, instead of
// tx deleting a million blocks and their search entries at once: a
// reindex of a message of a million blocks held the write lock 21 s, now
// at most about 2 s (another process's imports waited p99 0.85 s).
func hide(ctx context.Context, tx *Tx, id, token string, below int64) error {
	var lo, hi sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT min(id), max(id) FROM blocks WHERE session_num = `+numOf+` AND id < ?2`, id, below).Scan(&lo, &hi); err != nil || !lo.Valid {
		return err
	}
	for a := lo.Int64; a <= hi.Int64; a += int64(stageBlocks) {
		b := min(a+int64(stageBlocks)-1, hi.Int64)
		if _, err := tx.ExecContext(ctx, `INSERT INTO staged_blocks (session_num, token, lo, hi) VALUES (`+numOf+`, ?2, ?3, ?4)`, id, token, a, b); err != nil {
			return err
		}
	}
	return nil
}
