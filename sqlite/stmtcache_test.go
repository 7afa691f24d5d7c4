package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// TestStmtCache: a statement a write transaction ran is kept prepared for
// the next ones, which read what it reads as of their own time, through
// a table dropped and made again with other columns between them; a
// script of several statements and a read transaction's queries are not
// kept.
func TestStmtCache(t *testing.T) {
	ctx := context.Background()
	db := NewDB(filepath.Join(t.TempDir(), "s.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const query = `SELECT COUNT(*), COALESCE(SUM(v), 0) FROM kv`
	const script = `INSERT INTO kv (v) VALUES (1); INSERT INTO kv (v) VALUES (2)`
	write := func(setup string) (n, sum int) {
		t.Helper()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if setup != "" {
			if _, err := tx.ExecContext(ctx, setup); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.QueryRowContext(ctx, query).Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return n, sum
	}
	if _, err := db.db.Exec(`CREATE TABLE kv (v INTEGER)`); err != nil {
		t.Fatal(err)
	}
	if n, sum := write(script); n != 2 || sum != 3 {
		t.Fatalf("first: %d rows, sum %d; want 2, 3", n, sum)
	}
	if n, sum := write(`INSERT INTO kv (v) VALUES (10)`); n != 3 || sum != 13 {
		t.Fatalf("second: %d rows, sum %d; want 3, 13", n, sum)
	}
	db.stmts.mu.Lock()
	_, kept := db.stmts.stmts[query]
	_, keptScript := db.stmts.stmts[script]
	db.stmts.mu.Unlock()
	if !kept || keptScript {
		t.Fatalf("kept %v (want it), script kept %v (want not)", kept, keptScript)
	}
	if _, err := db.db.Exec(`DROP TABLE kv; CREATE TABLE kv (k TEXT, v INTEGER)`); err != nil {
		t.Fatal(err)
	}
	if n, sum := write(`INSERT INTO kv (k, v) VALUES ('a', 5)`); n != 1 || sum != 5 {
		t.Fatalf("after the table changed: %d rows, sum %d; want 1, 5", n, sum)
	}
	rtx, err := db.read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rtx.Rollback()
	var n int
	if err := rtx.QueryRowContext(ctx, `SELECT COUNT(*) FROM kv WHERE v > 0`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("read: %d rows, %v", n, err)
	}
	db.stmts.mu.Lock()
	_, readKept := db.stmts.wanted[`SELECT COUNT(*) FROM kv WHERE v > 0`]
	db.stmts.mu.Unlock()
	if readKept {
		t.Error("a read transaction's query was noted for the writer")
	}
}
