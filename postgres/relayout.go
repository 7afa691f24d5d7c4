package postgres

import (
	"context"

	"github.com/cairn-dev/cairn"
)

// relayoutBlocks is how many blocks (by id) one transaction of
// [DB.Relayout] rewrites.
var relayoutBlocks int64 = 20000 // a variable for tests

// Relayout rewrites, in place, a store written before migration 0010:
// the search_text each block kept beside its content and its tsvector is
// emptied, relayoutBlocks ids to a transaction (killed, the next run
// carries on: an emptied text is not looked at again). Raw lines are not
// rewritten: PostgreSQL keeps them as they were (bytea, which it
// compresses itself). Then, when vacuum is set, a plain VACUUM of the
// blocks lets later writes reuse the space (VACUUM FULL would give it
// back to the file system, but locks the table from every reader for as
// long as it runs: an administrator's choice, not cairn's).
func (db *DB) Relayout(ctx context.Context, vacuum bool, progress func(done, total int)) (_ *cairn.RelayoutReport, err error) {
	defer db.explain(&err)
	rep := &cairn.RelayoutReport{}
	var lo, hi int64
	tx, err := db.read(ctx)
	if err != nil {
		return nil, err
	}
	err = tx.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM sessions), COALESCE(MIN(id), 0), COALESCE(MAX(id), 0), (`+storeSize+`)
		FROM blocks WHERE search_text != ''`).Scan(&rep.Sessions, &lo, &hi, &rep.Before)
	tx.Rollback(ctx)
	if err != nil {
		return nil, err
	}
	sessions := map[string]bool{}
	for from := lo; hi > 0 && from <= hi; from += relayoutBlocks {
		err := db.write(ctx, func(tx *Tx) error {
			rows, err := tx.Query(ctx, `UPDATE blocks SET search_text = '' WHERE id >= $1 AND id < $2 AND search_text != '' RETURNING session_id`,
				from, from+relayoutBlocks)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					return err
				}
				sessions[id] = true
				rep.Views++
			}
			return rows.Err()
		})
		if err != nil {
			return rep, err
		}
		if progress != nil {
			progress(int(min(from+relayoutBlocks, hi+1)-lo), int(hi+1-lo))
		}
	}
	rep.Relaid = len(sessions)
	if vacuum && rep.Views > 0 {
		if _, err := db.pool.Exec(ctx, `VACUUM blocks`); err != nil {
			return rep, err
		}
	}
	tx, err = db.read(ctx)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback(ctx)
	err = tx.QueryRow(ctx, storeSize).Scan(&rep.After)
	return rep, err
}

// storeSize is the query of the store's size: its tables' in the schema
// it lives in, with their indexes and TOAST.
const storeSize = `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
	WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND c.relkind = 'r'`
