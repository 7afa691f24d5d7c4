package sqlite

import (
	"context"
	"database/sql"
	"strings"
)

// insertBatch is how many rows one INSERT statement carries: a statement
// per row spends more time crossing database/sql than SQLite spends
// storing it.
const insertBatch = 64

// insertRows inserts n rows of cols into table, values(i) giving row i's
// values: insertBatch rows per statement, the remainder one per statement,
// both prepared once per transaction.
func insertRows(ctx context.Context, tx *Tx, table string, cols []string, n int, values func(i int, dst []any) []any) error {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	prefix := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES "
	args := make([]any, 0, insertBatch*len(cols))
	for start := 0; start < n; {
		size := insertBatch
		if n-start < insertBatch {
			size = 1
		}
		stmt, err := tx.prepared(ctx, prefix+strings.TrimSuffix(strings.Repeat(row+", ", size), ", "))
		if err != nil {
			return err
		}
		args = args[:0]
		for i := start; i < start+size; i++ {
			args = values(i, args)
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return err
		}
		start += size
	}
	return nil
}

// prepared returns the transaction's statement for query, preparing it the
// first time; database/sql closes it when the transaction ends.
func (tx *Tx) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if stmt, ok := tx.stmts[query]; ok {
		return stmt, nil
	}
	stmt, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if tx.stmts == nil {
		tx.stmts = map[string]*sql.Stmt{}
	}
	tx.stmts[query] = stmt
	return stmt, nil
}
