package sqlite

import (
	"context"
	"fmt"
	"strings"
)

// Search entries a transaction retires. A hook's live import writes the
// session's last stored round again with the lines appended after it
// (inscribe's run.start): most often the round is as it was, its blocks
// given back the ids they had (the ids after the table's last one), their
// index texts the same. Deleting their search entries wrote a tombstone a
// block into the index (contentless_delete) and flushed them on their
// own at the transaction's next statement, where FTS5 counts each
// tombstone as a page written towards its next automatic merge: on the
// 1 GB hookbench store, the most of that flush's 2.2 ms a Stop. So the
// entries of the blocks a small retire deletes are kept until the
// transaction's pending index is written ([pendingIndex.write]): those
// of an id written again with the same text stand, the others are
// deleted then, before the new ones are inserted.

// unindexLater reads, in tx, the index texts of session id's searchable
// blocks of rounds seq onwards whose ids are below below and that readers
// see, into tx.unindexed; it reports false, reading nothing, when a text
// cannot be read (the caller deletes their entries at once).
func unindexLater(ctx context.Context, tx *Tx, id string, seq int, below int64) (bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+viewedColumns+`
		WHERE b.session_num = `+numOf+` AND b.round_seq >= ?2 AND b.id < ?3 AND b.searchable = 1 AND `+unstaged, id, seq, below)
	if err != nil {
		return false, err
	}
	var damaged bool
	blocks, err := viewedBlocks(ctx, tx, rows, func(error) error { damaged = true; return nil })
	if err != nil || damaged {
		return false, err
	}
	if tx.unindexed == nil {
		tx.unindexed = make(map[int64]string, len(blocks))
	}
	for _, b := range blocks {
		tx.unindexed[b.ID] = indexText(b)
	}
	return true, nil
}

// settleUnindexed deletes from the search index, in tx, the entries
// retired in it ([unindexLater]) of ids p holds no same text for, and
// lets go of p's texts of the others, whose entries stand.
func (p *pendingIndex) settleUnindexed(ctx context.Context, tx *Tx) error {
	if len(tx.unindexed) == 0 {
		return nil
	}
	var drop []string
	for id, old := range tx.unindexed {
		if t, ok := p.texts[id]; ok && t == old {
			delete(p.texts, id)
			p.size -= len(t)
			p.kept = append(p.kept, fmt.Sprint(id))
			continue
		}
		drop = append(drop, fmt.Sprint(id))
	}
	tx.unindexed = nil
	if len(drop) == 0 {
		return nil
	}
	// The ids are numbers this package read: written into the statement,
	// it is one statement whatever their count.
	_, err := tx.ExecContext(ctx, `DELETE FROM blocks_fts WHERE rowid IN (`+strings.Join(drop, ",")+`)`)
	return err
}
