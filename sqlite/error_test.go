package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/storetest"

	driver "modernc.org/sqlite"
)

// stores returns every store over db.
func stores(db *sqlite.DB) *storetest.Store {
	return &storetest.Store{
		Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db),
		Inscription: sqlite.NewInscriptionStore(db), Searcher: sqlite.NewSearcher(db),
		Frames: sqlite.NewFrameStore(db), Missions: sqlite.NewMissionStore(db),
		Tags: sqlite.NewTagStore(db), Engagements: sqlite.NewEngagementStore(db),
		Keep: sqlite.NewKeepStore(db), Stats: sqlite.NewStatsStore(db),
		Damage: func(tb testing.TB, id string, no int) { damageChunk(tb, db, id, no) },
	}
}

// damageChunk cuts in half the stored bytes of the chunk holding a
// session's line no, so that none of its lines can be read back.
func damageChunk(tb testing.TB, db *sqlite.DB, id string, no int) {
	tb.Helper()
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	res, err := tx.Exec(`UPDATE chunks SET data = substr(data, 1, length(data) / 2)
		WHERE session_id = ? AND generation = (SELECT generation FROM sessions WHERE id = ?) AND ? BETWEEN first_no AND last_no`, id, id, no)
	if err != nil {
		tb.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		tb.Fatalf("damaging line %d of session %s: %d chunks, %v", no, id, n, err)
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// TestStoreError_Damaged: every method of every store, on a store whose
// tables are damaged, fails with a message that names the store and says
// what to do, and keeps the driver's error.
func TestStoreError_Damaged(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cairn.db")
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	if _, err := stack(db).Push(ctx, "", &cairn.Frame{ID: "f", Title: "F", SuccessCriteria: "c"}, "ann"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	storetest.DamageSQLite(t, path)
	db = MustOpenDBAt(t, path)
	storetest.Broken(t, stores(db), path)

	_, err := sqlite.NewFrameStore(db).FindFrames(ctx)
	var se *driver.Error
	if !errors.As(err, &se) || !strings.Contains(cairn.ErrorMessage(err), "damaged") {
		t.Fatalf("FindFrames: %v, want the driver's error kept under a message that says the store is damaged", err)
	}
}

// TestStoreError_Closed: a closed store's methods fail as the store's
// errors too, not as database/sql's.
func TestStoreError_Closed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cairn.db")
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	storetest.Broken(t, stores(db), path)
}

// TestStoreError_NewerSchema: a store a newer cairn migrated (here, one
// that moved the frames table) is used as far as it can be; what fails
// says to upgrade cairn.
func TestStoreError_NewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cairn.db")
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`ALTER TABLE frames RENAME TO frames_v2`, `INSERT INTO migrations (name) VALUES ('migration/0099_future.sql')`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()
	db = MustOpenDBAt(t, path)
	if _, _, err := sqlite.NewSessionStore(db).FindSessions(ctx, cairn.SessionFilter{}); err != nil {
		t.Fatalf("sessions of a newer store: %v", err)
	}
	_, err = sqlite.NewFrameStore(db).FindFrames(ctx)
	msg := cairn.ErrorMessage(err)
	if !strings.Contains(msg, "newer cairn") || !strings.Contains(msg, "0099_future.sql") || !strings.Contains(msg, path) || storetest.DriverText(msg) != "" {
		t.Fatalf("frames of a newer store: %q (%v)", msg, err)
	}
}

// TestStoreError_NewerRefusesWrite: a write a newer cairn's schema
// refuses (a column it requires) says to upgrade cairn, not that cairn
// has a bug. Before: "a bug in cairn … run `cairn reindex`".
func TestStoreError_NewerRefusesWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cairn.db")
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`ALTER TABLE sessions ADD COLUMN future TEXT CHECK (future IS NOT NULL)`, `INSERT INTO migrations (name) VALUES ('migration/0099_future.sql')`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()
	db = MustOpenDBAt(t, path)
	msg := cairn.ErrorMessage(newerWrite(sqlite.NewInscriptionStore(db)))
	if !strings.Contains(msg, "upgrade cairn") || strings.Contains(msg, "bug") || !strings.Contains(msg, "0099_future.sql") || storetest.DriverText(msg) != "" {
		t.Fatalf("a write a newer store refuses: %q", msg)
	}
}

// newerWrite inscribes a one-line session into st.
func newerWrite(st cairn.InscriptionStore) error {
	s := &cairn.Session{ID: "0e0e0e0e-0000-4000-8000-000000000043", Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport}
	return st.Inscribe(context.Background(), &cairn.Inscription{Session: s, Source: cairn.Source{SessionID: s.ID, Offset: 3, Lines: 1},
		Lines: []*cairn.Line{{SessionID: s.ID, No: 1, Raw: []byte("{}\n")}}})
}

// TestOpen_NotADatabase: opening a file that is not a store says so, with
// its path and what to do.
func TestOpen_NotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cairn.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	db := sqlite.NewDB(path)
	err := db.Open()
	defer db.Close()
	msg := cairn.ErrorMessage(err)
	var se *driver.Error
	if !errors.As(err, &se) || !strings.Contains(msg, path) || !strings.Contains(msg, "not a cairn store") || storetest.DriverText(msg) != "" {
		t.Fatalf("open: %q (%v)", msg, err)
	}
}

// TestOpen_EmptyFile: an empty file where the store should be (truncated,
// or a copy that failed) is refused with its path and what to do, and left
// as it is: it is never silently made a new, empty store.
func TestOpen_EmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cairn.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	db := sqlite.NewDB(path)
	err := db.Open()
	defer db.Close()
	msg := cairn.ErrorMessage(err)
	if cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(msg, path) || !strings.Contains(msg, "empty") {
		t.Fatalf("open: %q (%v)", msg, err)
	}
	if info, err := os.Stat(path); err != nil || info.Size() != 0 {
		t.Fatalf("the empty file was changed: %v, %v", info, err)
	}
}

// TestStoreError_Busy: a write that waits out the busy timeout behind
// another process's writer says so and to try again, once; a read does
// not wait.
func TestStoreError_Busy(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cairn.db")
	MustOpenDBAt(t, path)
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	conn, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")

	db := sqlite.NewDB(path)
	// A second: five waits (5 s) stay apart from one (1 s) plus what a
	// loaded machine adds; at 300 ms the bound of four was 1.2 s, within
	// reach of one wait on a busy CI machine.
	db.BusyTimeout = time.Second
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := sqlite.NewFrameStore(db).FindFrames(ctx); err != nil {
		t.Fatalf("read under a writer: %v", err)
	}
	start := time.Now()
	_, err = stack(db).Push(ctx, "", &cairn.Frame{Title: "F", SuccessCriteria: "c"}, "ann")
	msg := cairn.ErrorMessage(err)
	if cairn.ErrorCode(err) == cairn.ECONFLICT || !strings.Contains(msg, path) || !strings.Contains(msg, "Try again") || storetest.DriverText(msg) != "" {
		t.Fatalf("write under a writer: %q (%v)", msg, err)
	}
	// Not ECONFLICT, which Stack reads as a lost race and retries: one
	// wait, not five.
	if took := time.Since(start); took > 4*db.BusyTimeout {
		t.Fatalf("the write waited %v for a busy timeout of %v", took, db.BusyTimeout)
	}
}
