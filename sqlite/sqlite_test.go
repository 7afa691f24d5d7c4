package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"cairn"
	"cairn/sqlite"
	"cairn/storetest"
)

// MustOpenDB returns a new, migrated store in a temporary folder, with a
// fixed clock.
func MustOpenDB(tb testing.TB) *sqlite.DB {
	tb.Helper()
	return MustOpenDBAt(tb, filepath.Join(tb.TempDir(), "cairn.db"))
}

// MustOpenDBAt opens (creating) the store at path, with a fixed clock.
func MustOpenDBAt(tb testing.TB, path string) *sqlite.DB {
	tb.Helper()
	db := sqlite.NewDB(path)
	db.Now = func() time.Time { return now }
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	return db
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(tb testing.TB) *storetest.Store {
		db := MustOpenDB(tb)
		return &storetest.Store{
			Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db),
			Inscription: sqlite.NewInscriptionStore(db), Searcher: sqlite.NewSearcher(db),
			Frames: sqlite.NewFrameStore(db), Missions: sqlite.NewMissionStore(db),
			Tags: sqlite.NewTagStore(db), Engagements: sqlite.NewEngagementStore(db),
		}
	})
}

func TestOpen_Reopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "cairn.db")
	for i := 0; i < 2; i++ {
		db := sqlite.NewDB(path)
		if err := db.Open(); err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpen_WhileWriting pins that opening a store already at the newest
// schema takes no write lock: a command that reads (search, a hook) opens
// at once while an import holds the writer, instead of waiting for it.
func TestOpen_WhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cairn.db")
	MustOpenDBAt(t, path)
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(30000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	conn, err := raw.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")

	done := make(chan error, 1)
	go func() {
		db := sqlite.NewDB(path)
		err := db.Open()
		db.Close()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Open waited for the writer's lock")
	}
}

// TestOpen_MigratesFrameSessions opens a store from before frames had a
// session (0006_frame_sessions.sql undone): its frames read with no
// session, and new ones keep theirs.
func TestOpen_MigratesFrameSessions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cairn.db")
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	if _, err := stack(db).Push(ctx, "", &cairn.Frame{ID: "old", Title: "Old", SuccessCriteria: "c"}, "ann"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP INDEX frames_session`, `ALTER TABLE frames DROP COLUMN session_id`,
		`DELETE FROM migrations WHERE name = 'migration/0006_frame_sessions.sql'`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()

	db = MustOpenDBAt(t, path)
	s := stack(db)
	if _, err := s.Push(ctx, "old", &cairn.Frame{ID: "new", Title: "New", SuccessCriteria: "c", SessionID: "0d0d0d0d"}, "ann"); err != nil {
		t.Fatal(err)
	}
	frames, err := sqlite.NewFrameStore(db).FindFrames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 2 || frames[0].SessionID != "" || frames[0].Owner != "ann" || frames[1].SessionID != "0d0d0d0d" {
		t.Fatalf("frames after migrating: %+v %+v", frames[0], frames[1])
	}
}
