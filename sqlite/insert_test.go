package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestInsertRows_Shared inserts rows some of whose columns are the same in
// every row of a statement, and some of which differ in one row only, and
// reads them back as they were given.
func TestInsertRows_Shared(t *testing.T) {
	db := NewDB(filepath.Join(t.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE t (a, b, c, d, e)`); err != nil {
		t.Fatal(err)
	}
	const n = 3*insertBatch + 5
	row := func(i int) []any {
		d := "same"
		if i == insertBatch+7 {
			d = "odd"
		}
		return []any{"s", i, fmt.Sprint("text ", i), d, i%2 == 0 && i < insertBatch}
	}
	if err := insertRows(ctx, tx, "t", []string{"a", "b", "c", "d", "e"}, n, func(i int, dst []any) []any { return append(dst, row(i)...) }); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT a, b, c, d, e FROM t ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var a, c, d string
		var b int
		var e bool
		if err := rows.Scan(&a, &b, &c, &d, &e); err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(a, b, c, d, e), fmt.Sprint(row(i)...); got != want {
			t.Errorf("row %d: %s, want %s", i, got, want)
		}
	}
	if i != n {
		t.Errorf("%d rows, want %d", i, n)
	}
}
