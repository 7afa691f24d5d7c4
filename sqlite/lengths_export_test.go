package sqlite

import (
	"context"
	"fmt"
)

// CheckLengths compares block_lengths with the index's docsize: every
// indexed block's length must be in its page, as FTS5 counted it. It
// returns the pages block_lengths holds.
func CheckLengths(ctx context.Context, db *DB) (pages int, err error) {
	tx, err := db.read(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	lens := map[int64][]byte{}
	rows, err := tx.QueryContext(ctx, `SELECT page, lens FROM block_lengths`)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		var page int64
		var b []byte
		if err := rows.Scan(&page, &b); err != nil {
			return 0, err
		}
		if len(b) != 2*lengthsPerPage {
			return 0, fmt.Errorf("page %d holds %d bytes", page, len(b))
		}
		lens[page] = b
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	rows, err = tx.QueryContext(ctx, `SELECT id, sz FROM blocks_fts_docsize`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var sz []byte
		if err := rows.Scan(&id, &sz); err != nil {
			return 0, err
		}
		want := int(min(ftsVarint(sz), 0xffff))
		if got := lengthAt(lens[id/lengthsPerPage], int(id%lengthsPerPage)); got != want {
			return 0, fmt.Errorf("block %d: length %d in block_lengths, %d in docsize", id, got, want)
		}
	}
	return len(lens), rows.Err()
}
