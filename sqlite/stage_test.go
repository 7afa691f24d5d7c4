package sqlite_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/storetest"
)

// TestConformance_Staged runs the conformance suite with every
// inscription of more than 2 blocks written through staged blocks: what
// the store holds and answers is the same.
func TestConformance_Staged(t *testing.T) {
	defer sqlite.SetStaging(2, 0)()
	storetest.Run(t, func(tb testing.TB) *storetest.Store { return stores(MustOpenDB(tb)) })
}

// TestStaged_Invisible: blocks staged by an import that never committed
// its batch (a crash) are seen by no reader, and the next import of the
// session drops them (as Inscribe does first).
func TestStaged_Invisible(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	st := stores(db)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO session_nums (session_id) VALUES ('s1')`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO blocks (session_num, round_seq, line_no, idx, role, kind, timestamp, content, searchable)
		SELECT num, 1, 1, 0, 'assistant', 'text', 0, 'orphaned words', 1 FROM session_nums WHERE session_id = 's1'`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO blocks_fts (rowid, content) SELECT id, content FROM blocks`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO staged_blocks (session_num, token, lo, hi) SELECT session_num, 'lost', id, id FROM blocks`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "orphaned"})
	if err != nil || len(hits) != 0 {
		t.Fatalf("search of a staged block: %v, %v; want no hit", hits, err)
	}
	if err := sqlite.NewInscriptionStore(db).DropStaged(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	rtx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rtx.Rollback()
	var n int
	if err := rtx.QueryRow(`SELECT (SELECT COUNT(*) FROM staged_blocks) + (SELECT COUNT(*) FROM blocks)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("left after the next import: %d rows, %v", n, err)
	}
}
