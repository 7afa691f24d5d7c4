package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/claudecode"
	insc "github.com/cairn-dev/cairn/inscribe"
)

// TestLiveImport_KeepsSearchEntries: a live import of rounds appended
// to a session writes its last stored round again; the search entries of
// its blocks given back their ids with the same text stand (their FTS5
// origin, a counter each insertion takes the next of, unchanged: they
// were neither deleted nor inserted), and every searchable block, and
// only those, has its entry, found by its words. When another session's
// import took the ids after the round's, the round's blocks are given
// new ids: the old entries are deleted, the new ones inserted.
func TestLiveImport_KeepsSearchEntries(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	line := func(id string, i int, typ, word string) string {
		at := time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC).Format(time.RFC3339)
		if typ == "user" {
			return fmt.Sprintf(`{"type":"user","sessionId":%q,"uuid":"u%d","timestamp":%q,"message":{"role":"user","content":"prompt %s"}}`+"\n", id, i, at, word)
		}
		return fmt.Sprintf(`{"type":"assistant","sessionId":%q,"uuid":"a%d","timestamp":%q,"message":{"id":"msg_%d","role":"assistant","content":[{"type":"text","text":"answer %s"}],"usage":{"input_tokens":10,"output_tokens":20}}}`+"\n", id, i, at, i, word)
	}
	appendTo := func(path, text string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
	const a, b = "0f0e0d0c-0b0a-4909-8807-0605040302a1", "0f0e0d0c-0b0a-4909-8807-0605040302b2"
	pathA, pathB := filepath.Join(dir, a+".jsonl"), filepath.Join(dir, b+".jsonl")
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}
	for i := range 3 {
		appendTo(pathA, line(a, i, "user", words[i])+line(a, i, "assistant", words[i]))
	}
	db := NewDB(filepath.Join(dir, "s.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := struct {
		*InscriptionStore
		*LineStore
	}{NewInscriptionStore(db), NewLineStore(db)}
	im := &insc.Importer{Store: st, Format: claudecode.Format{}, Live: true}
	importOne := func(path string) {
		t.Helper()
		if _, err := im.Import(ctx, []string{path}); err != nil {
			t.Fatal(err)
		}
	}
	origins := func() map[int64]int64 {
		t.Helper()
		rows, err := db.db.QueryContext(ctx, `SELECT id, origin FROM blocks_fts_docsize`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		m := map[int64]int64{}
		for rows.Next() {
			var id, origin int64
			if err := rows.Scan(&id, &origin); err != nil {
				t.Fatal(err)
			}
			m[id] = origin
		}
		return m
	}
	ids := func(query string, args ...any) []int64 {
		t.Helper()
		rows, err := db.db.QueryContext(ctx, query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id)
		}
		slices.Sort(out)
		return out
	}
	lastRound := func(session string) []int64 {
		return ids(`SELECT b.id FROM blocks b JOIN session_nums n ON n.num = b.session_num
			WHERE n.session_id = ? AND b.searchable = 1 AND b.round_seq = (SELECT max(seq) FROM rounds WHERE session_id = ?)`, session, session)
	}
	check := func(when string) {
		t.Helper()
		indexed := slices.Sorted(maps.Keys(origins()))
		if want := ids(`SELECT id FROM blocks WHERE searchable = 1`); !slices.Equal(indexed, want) {
			t.Errorf("%s: search entries %v, searchable blocks %v", when, indexed, want)
		}
		for _, w := range words {
			got := ids(`SELECT rowid FROM blocks_fts WHERE blocks_fts MATCH ?`, w)
			want := ids(`SELECT b.id FROM blocks b WHERE b.searchable = 1 AND b.id IN (SELECT rowid FROM blocks_fts WHERE blocks_fts MATCH ?)`, w)
			if len(got) != len(want) {
				t.Errorf("%s: %q found in entries %v, of blocks %v", when, w, got, want)
			}
		}
	}

	importOne(pathA)
	check("first import")
	before, kept := origins(), lastRound(a)
	if len(kept) == 0 {
		t.Fatal("no searchable block in the last round")
	}
	appendTo(pathA, line(a, 3, "user", words[3])+line(a, 3, "assistant", words[3]))
	importOne(pathA)
	check("append")
	after := origins()
	for _, id := range kept {
		if after[id] != before[id] {
			t.Errorf("block %d of the round written again: search entry origin %d, was %d (deleted and inserted again)", id, after[id], before[id])
		}
	}
	if got := ids(`SELECT rowid FROM blocks_fts WHERE blocks_fts MATCH 'delta'`); len(got) != 2 {
		t.Errorf("the appended round's words found in %v, want its prompt and its answer", got)
	}

	// Another session's blocks take the ids after a's: a's last round,
	// written again, takes new ids, and its old entries go.
	appendTo(pathB, line(b, 0, "user", words[4])+line(b, 0, "assistant", words[4]))
	importOne(pathB)
	old := lastRound(a)
	appendTo(pathA, line(a, 4, "user", words[5])+line(a, 4, "assistant", words[5]))
	importOne(pathA)
	check("append after another session")
	moved := ids(`SELECT b.id FROM blocks b JOIN session_nums n ON n.num = b.session_num
		WHERE n.session_id = ? AND b.searchable = 1 AND b.round_seq = 4`, a)
	if slices.Equal(moved, old) {
		t.Fatalf("round 4 of a kept its ids %v: the test does not move it", old)
	}
	if got := ids(`SELECT rowid FROM blocks_fts WHERE blocks_fts MATCH 'delta'`); !slices.Equal(got, moved) {
		t.Errorf("round 4's words found in %v, want its blocks' new ids %v (old ids %v)", got, moved, old)
	}
	var n int
	if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM blocks_fts WHERE blocks_fts MATCH 'echo'`).Scan(&n); err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("session b's words found %d times, want 2", n)
	}
}
