package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/pgtest"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/cairn-dev/cairn/storetest"

	"github.com/jackc/pgx/v5"
)

// MustOpenDB returns a new, migrated store in a fresh schema.
func MustOpenDB(tb testing.TB) *postgres.DB {
	tb.Helper()
	db := postgres.NewDB(pgtest.Schema(tb, "the PostgreSQL store tests"))
	db.Now = func() time.Time { return time.Date(2026, 3, 19, 10, 23, 0, 0, time.UTC) }
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
		return stores(MustOpenDB(tb))
	})
}

func TestOpen_Reopen(t *testing.T) {
	dsn := pgtest.Schema(t, "the PostgreSQL store tests")
	for i := 0; i < 2; i++ {
		db := postgres.NewDB(dsn)
		if err := db.Open(); err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpen_MigratesFrameSessions opens a store from before frames had a
// session (0006_frame_sessions.sql undone): its frames read with no
// session, and new ones keep theirs.
func TestOpen_MigratesFrameSessions(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Schema(t, "the PostgreSQL store tests")
	db := postgres.NewDB(dsn)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	s := &cairn.Stack{Frames: postgres.NewFrameStore(db)}
	if _, err := s.Push(ctx, "", &cairn.Frame{ID: "old", Title: "Old", SuccessCriteria: "c"}, "ann"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP INDEX frames_session`, `ALTER TABLE frames DROP COLUMN session_id`,
		`DELETE FROM migrations WHERE name = 'migration/0006_frame_sessions.sql'`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close(ctx)

	db = postgres.NewDB(dsn)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s = &cairn.Stack{Frames: postgres.NewFrameStore(db)}
	if _, err := s.Push(ctx, "old", &cairn.Frame{ID: "new", Title: "New", SuccessCriteria: "c", SessionID: "0d0d0d0d"}, "ann"); err != nil {
		t.Fatal(err)
	}
	frames, err := postgres.NewFrameStore(db).FindFrames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 2 || frames[0].SessionID != "" || frames[0].Owner != "ann" || frames[1].SessionID != "0d0d0d0d" {
		t.Fatalf("frames after migrating: %+v %+v", frames[0], frames[1])
	}
}
