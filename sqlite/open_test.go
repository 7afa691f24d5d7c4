package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"cairn"
	"cairn/sqlite"
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
	case <-time.After(2 * time.Second):
		t.Fatal("opening and reading the store waited for the writer")
	}
}

// TestOpen_ReadsUnmapped: the read pool copies pages instead of mapping
// the file, which costs a short search more than it saves.
func TestOpen_ReadsUnmapped(t *testing.T) {
	db := MustOpenDB(t)
	tx, err := db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int64
	if err := tx.QueryRow(`PRAGMA mmap_size`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("read pool mmap_size = %d, want 0", n)
	}
}
