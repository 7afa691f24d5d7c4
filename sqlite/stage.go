package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cairn-dev/cairn"
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
// and that the next import of the session deletes ([InscriptionStore.dropStaged]),
// or the next write of any session or reindex ([InscriptionStore.Sweep]).

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
	ids   int64  // how many ids they span
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
	st.ids += hi - lo + 1
	st.done = time.Now()
	return nil
}

// publish makes st's blocks visible, in the transaction of the batch
// they belong to. Were some dropped meanwhile (by another import of the
// session, which found them left over: whole ranges, or a range's first
// part, its start moved on), the batch is stale: the import starts over.
func (st *staging) publish(ctx context.Context, tx *Tx, id string) error {
	var rows, ids int64
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(hi - lo + 1), 0) FROM staged_blocks WHERE session_num = `+numOf+` AND token = ?2`,
		id, st.token).Scan(&rows, &ids); err != nil {
		return err
	}
	if rows != int64(st.rows) || ids != st.ids {
		return fmt.Errorf("%d of %d staged block ranges, %d of %d ids: %w", rows, st.rows, ids, st.ids, cairn.ErrStale)
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM staged_blocks WHERE session_num = `+numOf+` AND token = ?2`, id, st.token)
	return err
}

// dropStaged deletes the staged blocks of session id, with their search
// entries: those of the staging token, or, if token is "", every one (an
// import of the session is about to start: any staged block is a lost
// import's).
func (s *InscriptionStore) dropStaged(ctx context.Context, id, token string) error {
	return s.dropRanges(ctx, id, token, 0, nil)
}

// Sweep deletes the staged and hidden blocks that no live writer will
// publish or delete: those a killed import, reindex or drop left, of any
// session, the import's own included, whether or not it is stored or
// its file read again. A session's are deleted only when its lock is
// free ([InscriptionStore.tryLockSession]): an import holds it from its
// first staged block to the last hidden one it deletes. A reindex, which
// takes no lock, whose staging is swept starts over (cairn.ErrStale).
// staged_blocks is empty but while a huge message is written: the query
// reads it first (CROSS JOIN keeps SQLite from reading every session's
// number and probing it with each: 0.85 ms in the SQLite CLI on a store
// of 2,193 sessions, at every import and so at every hook, 0.01 ms so).
func (s *InscriptionStore) Sweep(ctx context.Context) (err error) {
	defer s.db.explain(&err)
	defer func() {
		if err == nil {
			s.db.swept.Store(time.Now().UnixNano())
		}
	}()
	rtx, err := s.db.read(ctx)
	if err != nil {
		return err
	}
	left, err := readColumn[string](ctx, rtx, `SELECT DISTINCT n.session_id FROM staged_blocks p CROSS JOIN session_nums n ON n.num = p.session_num`)
	rtx.Rollback()
	if err != nil {
		return err
	}
	for _, id := range left {
		unlock, ok := s.tryLockSession(id)
		if !ok {
			continue
		}
		err := s.dropRanges(ctx, id, "", 0, nil)
		unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// sweepAgain is how long after a sweep of a DB an inscription into it
// sweeps again: an importer sweeps as it begins and its inscriptions go
// on sweeping while it runs, not each again at once (what a hook's
// import of one round would; what a killed writer left is hidden from
// every reader until it is swept).
const sweepAgain = time.Second

// sweepEvery sweeps unless the DB was swept less than [sweepAgain] ago.
func (s *InscriptionStore) sweepEvery(ctx context.Context) error {
	if last := s.db.swept.Load(); last != 0 && time.Since(time.Unix(0, last)) < sweepAgain {
		return nil
	}
	return s.Sweep(ctx)
}

// dropRanges deletes the staged blocks dropStaged deletes, at most
// stageBlocks ids of one range to a transaction, each read by id, and
// leaves the write lock free for gap between two transactions: a
// transaction's work is that of the ids it covers, however many blocks
// the session holds. ids, when known, are the session's block ids in the
// ranges, sorted: a transaction then starts at the next of them, not at
// the next id, and skips the other sessions' blocks in between.
func (s *InscriptionStore) dropRanges(ctx context.Context, id, token string, gap time.Duration, ids []int64) error {
	for first := true; ; first = false {
		if !first && gap > 0 {
			time.Sleep(gap)
		}
		rtx, err := s.db.read(ctx)
		if err != nil {
			return err
		}
		var row, lo, hi int64
		err = rtx.QueryRowContext(ctx, `SELECT rowid, lo, hi FROM staged_blocks WHERE session_num = `+numOf+` AND (token = ?2 OR ?2 = '') ORDER BY lo LIMIT 1`, id, token).Scan(&row, &lo, &hi)
		rtx.Rollback()
		if errors.Is(err, sql.ErrNoRows) {
			return nil // nothing (left) to drop
		} else if err != nil {
			return err
		}
		cut := min(hi, lo+int64(stageBlocks)-1)
		next := cut + 1
		if i, _ := slices.BinarySearch(ids, next); i < len(ids) {
			next = ids[i]
		} else if ids != nil {
			next = hi + 1
		}
		if err := s.dropRange(ctx, id, row, lo, cut, min(next, hi+1), hi); err != nil {
			return err
		}
	}
}

// dropRange deletes, in one transaction, the blocks of session id whose
// ids are lo to cut, with their search entries, and moves the start of
// staged range row (lo to hi) on to next, deleting it past hi; if the row
// no longer starts at lo (another process moved it on, or the import that
// staged it published its blocks), it deletes nothing. The blocks
// are read by id: the unary + keeps SQLite from reading the session's
// every entry of blocks_round instead (a million of them, twice a
// transaction, during the reindex of a million-block message).
func (s *InscriptionStore) dropRange(ctx context.Context, id string, row, lo, cut, next, hi int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q := `UPDATE staged_blocks SET lo = ?3 WHERE rowid = ?1 AND lo = ?2`
	if next > hi {
		q = `DELETE FROM staged_blocks WHERE rowid = ?1 AND lo = ?2`
	}
	res, err := tx.ExecContext(ctx, q, row, lo, next)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		// Since the range was read, another process moved it on or its
		// import published it: its blocks from lo are no longer ours to
		// delete.
		return err
	}
	for _, q := range []string{
		`DELETE FROM blocks_fts WHERE rowid IN (SELECT id FROM blocks WHERE id BETWEEN ?2 AND ?3 AND +session_num = ` + numOf + ` AND searchable = 1)`,
		`DELETE FROM blocks WHERE id BETWEEN ?2 AND ?3 AND +session_num = ` + numOf,
	} {
		if _, err := tx.ExecContext(ctx, q, id, lo, cut); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// blockIDs reads, in tx, the ids of session id's blocks from lo to hi
// (with visible, only those no reader skips: not staged, not hidden),
// sorted: what [hide] hides, by their first and last, and what
// dropRanges then skips to. They are read through the session's index in
// a read transaction, with no write lock held (0.2 s for a million
// blocks).
func blockIDs(ctx context.Context, tx *Tx, id string, lo, hi int64, visible bool) ([]int64, error) {
	q := `SELECT id FROM blocks b WHERE session_num = ` + numOf + ` AND id BETWEEN ?2 AND ?3`
	if visible {
		q += ` AND ` + unstaged
	}
	ids, err := readColumn[int64](ctx, tx, q, id, lo, hi)
	slices.Sort(ids)
	return ids, err
}

// hide makes the blocks of session id whose ids are in ids invisible to
// every reader, in tx, the transaction that makes their replacements
// visible: their span, first to last, becomes one staged range of token,
// which dropRanges then deletes a part to a transaction, instead of tx
// deleting a million blocks and their search entries at once (a reindex
// of a message of a million blocks held the write lock 21 s).
func hide(ctx context.Context, tx *Tx, id, token string, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO staged_blocks (session_num, token, lo, hi) VALUES (`+numOf+`, ?2, ?3, ?4)`, id, token, ids[0], ids[len(ids)-1])
	return err
}
