package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
)

// TestOpen_UnderWriter: opening an up-to-date store and reading it never
// waits for a writer (search, sessions, export and the SessionStart hook
// answer while an import holds the write lock).
func TestOpen_UnderWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cairn.db")
	writer := MustOpenDBAt(t, path)
	tx, err := writer.BeginTx(context.Background(), nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO migrations (name) VALUES ('held')`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		db := sqlite.NewDB(path)
		if err := db.Open(); err != nil {
			done <- err
			return
		}
		defer db.Close()
		_, _, err := sqlite.NewSessionStore(db).FindSessions(context.Background(), cairn.SessionFilter{})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("open and read under a held writer: %v", time.Since(start))
	case <-time.After(sqlite.DefaultBusyTimeout / 2): // well short of a wait for the writer, well past a loaded machine's delays
		t.Fatal("opening and reading the store waited for the writer")
	}
}

// TestOpen_ReadsUnmapped: both pools copy pages instead of mapping the
// file, which costs a short search more than it saves, and costs an
// import time and resident memory.
func TestOpen_ReadsUnmapped(t *testing.T) {
	db := MustOpenDB(t)
	if n := pragma(t, db, readPool, "mmap_size"); n != 0 {
		t.Fatalf("read pool mmap_size = %d, want 0", n)
	}
	if n := pragma(t, db, writePool, "mmap_size"); n != 0 {
		t.Fatalf("write pool mmap_size = %d, want 0", n)
	}
}

// TestOpen_ReadCache: DB.ReadCache bounds the read pool's page cache, and
// only the read pool's; unset, SQLite's default stays.
func TestOpen_ReadCache(t *testing.T) {
	if n := pragma(t, MustOpenDB(t), readPool, "cache_size"); n != -2000 {
		t.Fatalf("default read cache_size = %d, want -2000", n)
	}
	db := sqlite.NewDB(filepath.Join(t.TempDir(), "cairn.db"))
	db.ReadCache = 64
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := pragma(t, db, readPool, "cache_size"); n != -64 {
		t.Fatalf("read cache_size = %d, want -64", n)
	}
	if n := pragma(t, db, writePool, "cache_size"); n != -2000 {
		t.Fatalf("write cache_size = %d, want -2000", n)
	}
}

// The pools of a DB, as BeginTx chooses them.
var readPool, writePool = &sql.TxOptions{ReadOnly: true}, (*sql.TxOptions)(nil)

// pragma returns a pragma's value on one of db's pools (readPool or
// writePool), in a transaction of its own.
func pragma(tb testing.TB, db *sqlite.DB, pool *sql.TxOptions, name string) int64 {
	tb.Helper()
	tx, err := db.BeginTx(context.Background(), pool)
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	var n int64
	if err := tx.QueryRow(`PRAGMA ` + name).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}
