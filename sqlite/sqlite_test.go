package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/storetest"
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
		return stores(MustOpenDB(tb))
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
	case <-time.After(sqlite.DefaultBusyTimeout / 2): // well short of a wait for the writer, well past a loaded machine's delays
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

// TestOpen_MigratesRoundTagCounts opens a store from before
// round_tag_counts (0008_round_tag_counts.sql undone): the counts of the
// tags it already holds are filled in, and the triggers keep them as tags
// change afterwards.
func TestOpen_MigratesRoundTagCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cairn.db")
	MustOpenDBAt(t, path).Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	exec := func(qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := raw.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	counts := func() (got, want string) {
		t.Helper()
		read := func(q string) string {
			var s sql.NullString
			if err := raw.QueryRow(q).Scan(&s); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return s.String
		}
		return read(`SELECT group_concat(kind || ':' || tag || ':' || session_id || '=' || n, ' ') FROM (SELECT * FROM round_tag_counts ORDER BY 1, 2, 3)`),
			read(`SELECT group_concat(k || ':' || tag || ':' || session_id || '=' || n, ' ') FROM (
				SELECT 'engagement_id' AS k, engagement_id AS tag, session_id, COUNT(*) AS n FROM round_tags WHERE engagement_id != '' GROUP BY 2, 3
				UNION ALL SELECT 'frame_id', frame_id, session_id, COUNT(*) FROM round_tags WHERE frame_id != '' GROUP BY 2, 3 ORDER BY 1, 2, 3)`)
	}
	exec(`DROP TRIGGER round_tags_count_insert`, `DROP TRIGGER round_tags_count_delete`, `DROP TRIGGER round_tags_count_update`,
		`DROP TABLE round_tag_counts`, `DELETE FROM migrations WHERE name = 'migration/0008_round_tag_counts.sql'`,
		`INSERT INTO round_tags VALUES ('s1', 1, 'e1', 'f1'), ('s1', 2, '', 'f1'), ('s2', 1, 'e1', ''), ('s2', 2, 'e2', 'f1')`)

	MustOpenDBAt(t, path).Close()
	got, want := counts()
	if want != "engagement_id:e1:s1=1 engagement_id:e1:s2=1 engagement_id:e2:s2=1 frame_id:f1:s1=2 frame_id:f1:s2=1" || got != want {
		t.Fatalf("counts after migrating: %q, want %q", got, want)
	}
	exec(`INSERT INTO round_tags (session_id, seq, frame_id) VALUES ('s1', 3, 'f2'), ('s1', 1, 'f2')
			ON CONFLICT (session_id, seq) DO UPDATE SET frame_id = excluded.frame_id`,
		`UPDATE round_tags SET engagement_id = '' WHERE session_id = 's2'`,
		`DELETE FROM round_tags WHERE engagement_id = '' AND frame_id = ''`,
		`UPDATE round_tags SET session_id = 's3' WHERE session_id = 's1' AND seq = 2`)
	if got, want := counts(); got != want {
		t.Fatalf("counts after changes: %q, want %q", got, want)
	}
}
