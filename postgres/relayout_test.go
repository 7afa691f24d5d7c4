package postgres_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/pgtest"
	"github.com/cairn-dev/cairn/postgres"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// pgSnapshot is what a store returns: every line's SHA-256, every round
// with its blocks, and the hits of a few searches.
type pgSnapshot struct {
	Lines  map[string][][sha256.Size]byte
	Rounds map[string][]*cairn.Round
	Hits   map[string][]*cairn.Hit
}

func takePGSnapshot(tb testing.TB, dsn string) pgSnapshot {
	tb.Helper()
	ctx := context.Background()
	db := postgres.NewDB(dsn)
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	sessions, _, err := postgres.NewSessionStore(db).FindSessions(ctx, cairn.SessionFilter{Subagents: true})
	if err != nil {
		tb.Fatal(err)
	}
	s := pgSnapshot{Lines: map[string][][sha256.Size]byte{}, Rounds: map[string][]*cairn.Round{}, Hits: map[string][]*cairn.Hit{}}
	for _, sess := range sessions {
		lines, err := postgres.NewLineStore(db).FindAllLines(ctx, sess.ID)
		if err != nil {
			tb.Fatal(err)
		}
		for _, l := range lines {
			s.Lines[sess.ID] = append(s.Lines[sess.ID], sha256.Sum256(l.Raw))
		}
		if s.Rounds[sess.ID], err = postgres.NewRoundStore(db).FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID, WithBlocks: true}); err != nil {
			tb.Fatal(err)
		}
	}
	for _, q := range []string{"the", "test", "README", "function", "error"} {
		if s.Hits[q], err = postgres.NewSearcher(db).Search(ctx, cairn.SearchQuery{Text: q, Limit: 20}); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// TestRelayout: a store written before migration 0010 (undone: search_text
// kept, tsv generated from it) opens, migrates, reads the same; Relayout
// empties every search_text, a few blocks to a transaction, and the store
// still reads the same; a second run has nothing to do; a new import
// keeps no search_text.
func TestRelayout(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Schema(t, "the PostgreSQL store tests")
	db := postgres.NewDB(dsn)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{`DROP TRIGGER blocks_tsv ON blocks`, `DROP FUNCTION cairn_blocks_tsv`, `ALTER TABLE blocks DROP COLUMN tsv`,
		`ALTER TABLE blocks ADD COLUMN tsv TSVECTOR GENERATED ALWAYS AS (CASE WHEN searchable THEN to_tsvector('simple'::regconfig, search_text) END) STORED`,
		`CREATE INDEX blocks_tsv ON blocks USING GIN (tsv) WHERE searchable`,
		`DELETE FROM migrations WHERE name = 'migration/0010_search_text.sql'`} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	imp := func(dsn string) {
		db := postgres.NewDB(dsn)
		if err := db.Open(); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		st := struct {
			*postgres.InscriptionStore
			*postgres.LineStore
		}{postgres.NewInscriptionStore(db), postgres.NewLineStore(db)}
		paths, _ := filepath.Glob("../testdata/claudecode/*.jsonl")
		rep, err := (&inscribe.Importer{Store: st, Format: claudecode.Format{}}).Import(ctx, paths)
		if err != nil || rep.Failed > 0 || len(paths) == 0 {
			t.Fatalf("import %d files: %v %s", len(paths), err, rep.Summary())
		}
	}
	count := func() (kept int) {
		if err := conn.QueryRow(ctx, `SELECT COUNT(*) FROM blocks WHERE search_text != ''`).Scan(&kept); err != nil {
			t.Fatal(err)
		}
		return kept
	}
	// The old layout: the migration undone, the import runs as before it.
	restore := pgOpenWithout(t, dsn)
	imp(dsn)
	restore()
	if count() == 0 {
		t.Fatal("the old layout kept no search_text")
	}
	before := takePGSnapshot(t, dsn) // opened: migrated
	postgres.SetRelayoutBlocks(7)
	db = postgres.NewDB(dsn)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rep, err := db.Relayout(ctx, true, nil)
	if err != nil {
		t.Fatal(err, errors.Unwrap(err))
	}
	t.Logf("relayout: %+v", *rep)
	if rep.Views == 0 || rep.Relaid == 0 || count() != 0 {
		t.Errorf("relayout %+v left %d search_text", *rep, count())
	}
	if diff := cmp.Diff(before, takePGSnapshot(t, dsn)); diff != "" {
		t.Fatalf("the store reads differently after its relayout (-before +after):\n%s", diff)
	}
	if again, err := db.Relayout(ctx, false, nil); err != nil || again.Views != 0 {
		t.Errorf("a second relayout: %+v, %v", again, err)
	}
	fresh := pgtest.Schema(t, "the PostgreSQL store tests")
	imp(fresh)
	fconn, err := pgx.Connect(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	defer fconn.Close(ctx)
	var kept, indexed int
	if err := fconn.QueryRow(ctx, `SELECT COUNT(*) FILTER (WHERE search_text != ''), COUNT(*) FILTER (WHERE tsv IS NOT NULL) FROM blocks`).Scan(&kept, &indexed); err != nil {
		t.Fatal(err)
	}
	if kept != 0 || indexed == 0 {
		t.Errorf("a new import kept %d search_text and indexed %d blocks", kept, indexed)
	}
	if diff := cmp.Diff(before.Hits, takePGSnapshot(t, fresh).Hits); diff != "" {
		t.Errorf("a new import searches differently (-old layout +new):\n%s", diff)
	}
}

// pgOpenWithout has DB.Open skip migration 0010 (its name recorded as if
// run, so nothing runs it), returning the function that lets it run.
func pgOpenWithout(t *testing.T, dsn string) func() {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `INSERT INTO migrations (name) VALUES ('migration/0010_search_text.sql')`); err != nil {
		t.Fatal(err)
	}
	return func() {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), `DELETE FROM migrations WHERE name = 'migration/0010_search_text.sql'`); err != nil {
			t.Fatal(err)
		}
	}
}
