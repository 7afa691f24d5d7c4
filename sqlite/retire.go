package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"strconv"
)

// Retired blocks. An import that replaces rounds (a transcript edited in
// place starts a new generation; a line appended to a huge round
// rewrites it) deleted their old blocks and search entries in its own
// transaction: for a message of a million blocks, 13.7 s of the write
// lock, every other import waiting. When the blocks to delete span more
// than stageBlocks ids, the transaction hides them instead, as one staged
// range no reader sees ([unstaged]), and they are deleted after it, a
// part to a transaction ([InscriptionStore.dropRanges]). A kill in
// between leaves them hidden; the next import of the session deletes
// them (it drops every staged range of its session first).

// keepRetired leaves retired blocks hidden, as a kill after the
// transaction that hid them would, for tests.
var keepRetired = false

// A retired range is the old blocks a transaction hid: the session's
// blocks whose ids are lo to hi, under token in staged_blocks.
type retired struct {
	session string
	token   string
	lo, hi  int64
}

// retire deletes, in tx, session id's blocks of rounds seq onwards whose
// ids are below below, with their search entries (with visible, only
// those readers see: blocks another import is staging, or hidden ones,
// are left to the deletion of their range), or, when they span more than
// stageBlocks ids, hides them and returns the range hidden, which the
// caller deletes after tx commits ([InscriptionStore.dropRetired]).
// The span is found by index seeks, three a round, never by reading
// every block: a round's blocks are numbered after every block of the
// rounds before it, since writing a round writes every round after it
// again.
func retire(ctx context.Context, tx *Tx, id string, seq int, below int64, visible bool) (*retired, error) {
	lo, hi, err := span(ctx, tx, id, seq, below)
	if err != nil {
		return nil, err
	}
	if hi-lo < int64(stageBlocks) {
		return nil, deleteBlocks(ctx, tx, id, seq, below, visible)
	}
	r := &retired{session: id, token: strconv.FormatInt(rand.Int64(), 36) + "-old", lo: lo, hi: hi}
	return r, hide(ctx, tx, id, r.token, []int64{lo, hi})
}

// deleteBlocks deletes, in tx, session id's blocks of rounds seq onwards
// whose ids are below below, with their search entries; with visible,
// only those no staged range covers. A staged block is deleted with its
// range's row or not at all: a row left covering deleted ids at the top
// of the table would hide the blocks that are given those ids next, and
// its deletion would delete them.
func deleteBlocks(ctx context.Context, tx *Tx, id string, seq int, below int64, visible bool) error {
	cond := `session_num = ` + numOf + ` AND round_seq >= ?2 AND id < ?3`
	unindexNow := true
	if visible {
		cond += ` AND ` + unstaged
		// A retire's few blocks: their search entries are settled as the
		// transaction's index is written (unindex.go).
		later, err := unindexLater(ctx, tx, id, seq, below)
		if err != nil {
			return err
		}
		unindexNow = !later
	}
	if unindexNow {
		if _, err := tx.ExecContext(ctx, `DELETE FROM blocks_fts WHERE rowid IN (SELECT id FROM blocks b WHERE `+cond+` AND searchable = 1)`, id, seq, below); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM blocks AS b WHERE `+cond, id, seq, below)
	return err
}

// span returns the first and the last id of session id's blocks of
// rounds seq onwards whose ids are below below (hi < lo if none).
func span(ctx context.Context, tx *Tx, id string, seq int, below int64) (lo, hi int64, err error) {
	next, err := tx.PrepareContext(ctx, `SELECT round_seq FROM blocks WHERE session_num = `+numOf+` AND round_seq >= ?2 ORDER BY round_seq LIMIT 1`)
	if err != nil {
		return 0, 0, err
	}
	defer next.Close()
	first, err := tx.PrepareContext(ctx, `SELECT id FROM blocks WHERE session_num = `+numOf+` AND round_seq = ?2 ORDER BY id LIMIT 1`)
	if err != nil {
		return 0, 0, err
	}
	defer first.Close()
	last, err := tx.PrepareContext(ctx, `SELECT id FROM blocks WHERE session_num = `+numOf+` AND round_seq = ?2 AND id < ?3 ORDER BY id DESC LIMIT 1`)
	if err != nil {
		return 0, 0, err
	}
	defer last.Close()
	lo, hi = 1, 0
	for {
		var r int
		if err := next.QueryRowContext(ctx, id, seq).Scan(&r); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return lo, hi, nil
			}
			return 0, 0, err
		}
		seq = r + 1
		var a, b int64
		if err := first.QueryRowContext(ctx, id, r).Scan(&a); err != nil {
			return 0, 0, err
		}
		if a >= below {
			continue // the round's blocks are all the caller's own
		}
		if err := last.QueryRowContext(ctx, id, r, below).Scan(&b); err != nil {
			return 0, 0, err
		}
		if hi < lo {
			lo, hi = a, b
		}
		lo, hi = min(lo, a), max(hi, b)
	}
}

// dropRetired deletes the blocks r hid, a part to a transaction, reading
// their ids first, outside any write transaction, so that each
// transaction skips the other sessions' blocks between them. The
// inscription that hid them is stored whatever happens here: a failure
// (a cancelled import) leaves them hidden for the session's next import
// to delete, and is not the import's.
func (s *InscriptionStore) dropRetired(ctx context.Context, r *retired) {
	if r == nil || keepRetired {
		return
	}
	rtx, err := s.db.read(ctx)
	if err != nil {
		return
	}
	ids, err := blockIDs(ctx, rtx, r.session, r.lo, r.hi, false)
	rtx.Rollback()
	if err == nil {
		_ = s.dropRanges(ctx, r.session, r.token, stageGap, ids)
	}
}
