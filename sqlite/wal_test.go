package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestWAL_BegunAgainAfterExit: a store whose WAL a process left longer
// than walLimit, exiting without closing it (as a hook does), has its WAL
// copied into the store and begun again by the next process's first
// write, its file cut back to walLimit: each hook's open reads the WAL
// through, and it grew by every hook's frames (36 MB on the bench store).
// What was in the WAL is still read.
func TestWAL_BegunAgainAfterExit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := NewDB(filepath.Join(dir, "s.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	write := func(db *DB, query string) {
		t.Helper()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, query); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	write(db, `CREATE TABLE kv (v BLOB)`)
	for range 3 {
		write(db, `INSERT INTO kv (v) VALUES (randomblob(400000))`)
	}
	// The files as a process that exits without closing leaves them.
	exited := filepath.Join(t.TempDir(), "s.db")
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(db.Path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exited+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if info, _ := os.Stat(exited + "-wal"); info.Size() <= walLimit {
		t.Fatalf("the WAL left holds %d bytes, want more than %d for the test", info.Size(), walLimit)
	}
	next := NewDB(exited)
	if err := next.Open(); err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	write(next, `INSERT INTO kv (v) VALUES (x'01')`)
	info, err := os.Stat(exited + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() > walLimit {
		t.Errorf("the WAL holds %d bytes after the next process's write, want at most %d", info.Size(), walLimit)
	}
	var n int
	if err := next.rdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM kv WHERE length(v) = 400000`).Scan(&n); err != nil || n != 3 {
		t.Errorf("rows of the WAL left: %d, %v; want 3", n, err)
	}
}
