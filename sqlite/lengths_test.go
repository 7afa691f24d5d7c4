package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/storetest"
)

// lengthsSession is a session of rounds rounds whose prompts and answers
// are "needle" among n filler words, n varying from block to block, so
// that ranking by length orders them.
func lengthsSession(id string, rounds int) *cairn.Inscription {
	s := &cairn.Session{ID: id, Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport}
	in := &cairn.Inscription{Session: s, Source: cairn.Source{SessionID: id, Path: "/t/" + id + ".jsonl"}}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	no := 0
	for r := 1; r <= rounds; r++ {
		in.Rounds = append(in.Rounds, &cairn.Round{SessionID: id, Seq: r, StartedAt: at, EndedAt: at, FirstLine: no + 1, LastLine: no + 2})
		for j := range 2 {
			no++
			words := []string{"needle", id}
			for k := range (no*7 + j*13) % 40 {
				words = append(words, fmt.Sprintf("filler%d", k))
			}
			text := strings.Join(words, " ")
			raw := fmt.Sprintf(`{"n":%d,"text":%q}`+"\n", no, text)
			in.Lines = append(in.Lines, &cairn.Line{SessionID: id, No: no, Offset: in.Source.Offset, Raw: []byte(raw),
				Type: "user", Timestamp: at, RoundSeq: r, Status: cairn.LineOK})
			in.Source.Offset += int64(len(raw))
			in.Source.Lines++
			in.Blocks = append(in.Blocks, &cairn.Block{SessionID: id, RoundSeq: r, LineNo: no, Role: "user",
				Kind: cairn.UserText, Timestamp: at, Content: text})
		}
	}
	return in
}

// TestBlockLengths_FollowTheIndex: block_lengths holds every indexed
// block's length as docsize does after imports, a session imported again
// and a drop, and a drop lets the pages of the ids it freed go.
func TestBlockLengths_FollowTheIndex(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	st := stores(db)
	check := func(when string) int {
		t.Helper()
		pages, err := sqlite.CheckLengths(ctx, db)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		return pages
	}
	for _, id := range []string{"first", "second", "third"} {
		storetest.MustInscribe(t, st, lengthsSession(id, 400)) // 800 blocks: pages of 256 ids
	}
	all := check("after three imports")
	if all < 9 {
		t.Fatalf("2,400 blocks in %d pages", all)
	}
	again := lengthsSession("second", 401) // its transcript rewritten
	again.Reset, again.Source.Generation = true, 1
	again.Blocks[0].Content += " " + strings.Repeat("more words ", 30)
	storetest.MustInscribe(t, st, again)
	check("after the second session again")
	if err := st.Keep.DropSessions(ctx, []string{"first", "second"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if left := check("after a drop"); left >= all {
		t.Errorf("%d pages before the drop of two sessions of three, %d after", all, left)
	}
}

// TestBlockLengths_Migrate: a store from before block_lengths is given
// it, filled from docsize, when it is opened.
func TestBlockLengths_Migrate(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	storetest.MustInscribe(t, stores(db), lengthsSession("old", 300))
	path := db.Path
	db.Close()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE block_lengths`, `DELETE FROM migrations WHERE name = 'migration/0018_block_lengths.sql'`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	db = MustOpenDBAt(t, path)
	if pages, err := sqlite.CheckLengths(ctx, db); err != nil || pages < 3 {
		t.Fatalf("after migration: %d pages, %v", pages, err)
	}
}

// TestSearch_LengthsFromDocsize: a search ranks alike whether the
// lengths are read from block_lengths or, where it has none (a killed
// refill, a damaged row), from docsize; and ranking by length is what
// orders the hits (shortest first).
func TestSearch_LengthsFromDocsize(t *testing.T) {
	db := MustOpenDB(t)
	storetest.MustInscribe(t, stores(db), lengthsSession("ranked", 200))
	search := func() []string {
		hits := mustSearch(t, sqlite.NewSearcher(db), cairn.SearchQuery{Text: "needle", Limit: 20, Steps: true})
		var refs []string
		for _, h := range hits {
			refs = append(refs, h.Ref+" "+h.Snippet)
		}
		return refs
	}
	packed := search()
	if len(packed) != 20 {
		t.Fatalf("%d hits", len(packed))
	}
	for i := 1; i < len(packed); i++ {
		if words(packed[i]) < words(packed[i-1]) {
			t.Errorf("hit %d (%d words) after a longer one (%d words)", i, words(packed[i]), words(packed[i-1]))
		}
	}
	raw, err := sql.Open("sqlite", db.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range []string{`UPDATE block_lengths SET lens = zeroblob(512) WHERE page % 2 = 0`, `DELETE FROM block_lengths WHERE page % 3 = 0`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
		if got := search(); !slices.Equal(got, packed) {
			t.Errorf("after %s:\n%q\nwant\n%q", q, got, packed)
		}
	}
}

// words counts the words of a hit's snippet.
func words(hit string) int { return len(strings.Fields(hit)) }
