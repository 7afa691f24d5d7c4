package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Blocks, messages and staged blocks name their session by its number
// in session_nums (migration 0016), a few bytes where the id took 37 in
// each row and in each index entry of the row.

// numOf is the number of the session whose id is the statement's first
// argument, as a subquery SQLite evaluates once per statement.
const numOf = `(SELECT num FROM session_nums WHERE session_id = ?1)`

// sessionNum returns the number of session id, giving it one if it has
// none yet.
func sessionNum(ctx context.Context, tx *Tx, id string) (int64, error) {
	if num, ok := tx.nums[id]; ok {
		return num, nil
	}
	var num int64
	err := tx.QueryRowContext(ctx, `SELECT num FROM session_nums WHERE session_id = ?`, id).Scan(&num)
	if errors.Is(err, sql.ErrNoRows) {
		err = tx.QueryRowContext(ctx, `INSERT INTO session_nums (session_id) VALUES (?) RETURNING num`, id).Scan(&num)
	}
	if err == nil {
		if tx.nums == nil {
			tx.nums = map[string]int64{}
		}
		tx.nums[id] = num
	}
	return num, err
}

// stampOf stores a time as Unix milliseconds, the zero time as 0: the
// text it replaced kept milliseconds, and sorted as the numbers do.
func stampOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// parseStamp reads a time stampOf stored.
func parseStamp(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
