package sqlite

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// insertBatch is how many rows one INSERT statement carries: a statement
// per row spends more time crossing database/sql than SQLite spends
// storing it.
const insertBatch = 64

// insertRows inserts n rows of cols into table, values(i) giving row i's
// values: insertBatch rows per statement, the remainder one per statement.
// A column whose value is the same in every row of a statement is bound
// once, in its first row, and the other rows name that parameter: the
// blocks of one line share all but their index and content, and binding
// an argument costs more than SQLite spends storing it. Statements are
// prepared once per transaction and set of shared columns.
func insertRows(ctx context.Context, tx *Tx, table string, cols []string, n int, values func(i int, dst []any) []any) error {
	if len(cols) > 64 {
		panic("insertRows: more than 64 columns")
	}
	nc := len(cols)
	stmts := map[uint64]*sql.Stmt{} // by shared columns, for statements of insertBatch rows
	rows := make([]any, 0, insertBatch*nc)
	args := make([]any, 0, insertBatch*nc)
	for start := 0; start < n; {
		size := insertBatch
		if n-start < insertBatch {
			size = 1
		}
		rows = rows[:0]
		for i := start; i < start+size; i++ {
			rows = values(i, rows)
		}
		var shared uint64
		if size > 1 {
			shared = sameColumns(rows, nc)
		}
		stmt := stmts[shared]
		if size == 1 || stmt == nil {
			var err error
			if stmt, err = tx.prepared(ctx, insertQuery(table, cols, size, shared)); err != nil {
				return err
			}
			if size > 1 {
				stmts[shared] = stmt
			}
		}
		// The first row's values, then the others' unshared ones.
		args = append(args[:0], rows[:nc]...)
		for i, v := range rows[nc:] {
			if shared&(1<<(i%nc)) == 0 {
				args = append(args, v)
			}
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return err
		}
		start += size
	}
	return nil
}

// sameColumns returns the set of columns (bit c for column c) whose value
// is the same in every row of rows, nc values a row. Only strings,
// integers and booleans are compared.
func sameColumns(rows []any, nc int) uint64 {
	var same uint64
	for c := range nc {
		if sameColumn(rows, nc, c) {
			same |= 1 << c
		}
	}
	return same
}

func sameColumn(rows []any, nc, c int) bool {
	switch first := rows[c].(type) {
	case string:
		return sameAs(rows, nc, c, first)
	case int:
		return sameAs(rows, nc, c, first)
	case int64:
		return sameAs(rows, nc, c, first)
	case bool:
		return sameAs(rows, nc, c, first)
	}
	return false
}

// sameAs reports whether column c of every row after the first holds
// first, of its type.
func sameAs[T comparable](rows []any, nc, c int, first T) bool {
	for i := c + nc; i < len(rows); i += nc {
		if v, ok := rows[i].(T); !ok || v != first {
			return false
		}
	}
	return true
}

// insertQuery returns the INSERT of size rows of cols into table: the
// first row's parameters are anonymous (numbered 1 to len(cols)), and a
// column in shared names its parameter in the other rows, whose other
// parameters are anonymous, numbered on from there.
func insertQuery(table string, cols []string, size int, shared uint64) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ")
	for r := range size {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('?')
			if r > 0 && shared&(1<<c) != 0 {
				b.WriteString(strconv.Itoa(c + 1))
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}
