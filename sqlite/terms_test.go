package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/storetest"
)

// TestSearch_PrefixAsTerms: on a store of the real transcripts, every
// prefix of three to six letters of a sample of its terms, and whole
// words, find the same hits in the same order whether a prefix is
// searched as the terms index_terms lists or as FTS5's prefix; and
// index_terms holds every term of the index.
func TestSearch_PrefixAsTerms(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	importInto(t, path, realTranscripts(t))
	db := MustOpenDBAt(t, path)
	n, err := sqlite.CheckTerms(ctx, db)
	if err != nil || n < 1000 {
		t.Fatalf("%d terms: %v", n, err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`SELECT term FROM index_terms WHERE term GLOB '[a-z][a-z][a-z]*'`)
	if err != nil {
		t.Fatal(err)
	}
	var terms []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		terms = append(terms, s)
	}
	rows.Close()
	queries := map[string]bool{"error handling": true, "test*": true, "conf": true, "the": true, "sqlite migration": true}
	for i := 0; i < len(terms); i += 97 {
		for n := 3; n <= min(6, len(terms[i])); n++ {
			queries[terms[i][:n]] = true
		}
		queries[terms[i]] = true
	}
	s := sqlite.NewSearcher(db)
	found := 0
	for q := range queries {
		query := cairn.SearchQuery{Text: q, Limit: 20, Steps: true}
		terms := mustSearch(t, s, query)
		// A bound of 0 searches every prefix as itself; of 2, those of
		// more terms than that.
		for _, bound := range []int{0, 2} {
			restore := sqlite.SetPrefixTerms(bound)
			prefix := mustSearch(t, s, query)
			restore()
			if !slices.EqualFunc(terms, prefix, func(a, b *cairn.Hit) bool { return fmt.Sprint(*a) == fmt.Sprint(*b) }) {
				t.Errorf("%q: %d hits as terms, %d with at most %d terms a prefix, or in another order", q, len(terms), len(prefix), bound)
			}
		}
		if len(terms) > 0 {
			found++
		}
	}
	if found < len(queries)/2 {
		t.Errorf("%d of %d queries found anything", found, len(queries))
	}
	t.Logf("%d queries, %d finding hits, %d terms", len(queries), found, n)
}

// TestIndexTerms_FollowTheIndex: index_terms holds every term of the
// index after imports, and a drop lets go of the terms only the dropped
// sessions held.
func TestIndexTerms_FollowTheIndex(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	st := stores(db)
	for _, id := range []string{"alpha", "bravo", "charlie"} {
		storetest.MustInscribe(t, st, lengthsSession(id, 20))
	}
	// Words of other than ASCII are stemmed by FTS5 itself.
	storetest.MustInscribe(t, st, inscription("Café-Naïve_Ünïcode-émigrés-漢字テスト"))
	if _, err := sqlite.CheckTerms(ctx, db); err != nil {
		t.Fatal(err)
	}
	held := func() map[string]bool {
		raw, err := sql.Open("sqlite", db.Path)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		rows, err := raw.Query(`SELECT term FROM index_terms WHERE term IN ('alpha', 'bravo', 'charli', 'needl')`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		terms := map[string]bool{}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			terms[s] = true
		}
		return terms
	}
	if got := held(); len(got) != 4 {
		t.Fatalf("before the drop: %v", got)
	}
	if err := st.Keep.DropSessions(ctx, []string{"alpha", "bravo"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.CheckTerms(ctx, db); err != nil {
		t.Fatal(err)
	}
	if got := held(); len(got) != 2 || !got["charli"] || !got["needl"] {
		t.Errorf("after dropping alpha and bravo, index_terms holds %v of alpha, bravo, charli, needl", got)
	}
}

// TestIndexTerms_PrunedElsewhere: a DB that wrote a term writes it again
// after another DB on the same store pruned it (a drop in another
// process), rather than taking it for written.
func TestIndexTerms_PrunedElsewhere(t *testing.T) {
	ctx := context.Background()
	a := MustOpenDB(t)
	b := MustOpenDBAt(t, a.Path)
	storetest.MustInscribe(t, stores(a), lengthsSession("alpha", 5))
	if err := stores(b).Keep.DropSessions(ctx, []string{"alpha"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	storetest.MustInscribe(t, stores(a), lengthsSession("bravo", 5)) // the same filler words
	if n, err := sqlite.CheckTerms(ctx, a); err != nil {
		t.Fatalf("after a prune by another DB: %v (%d terms)", err, n)
	}
}

// TestIndexTerms_Restemmed: a term the stemmer changes again (consider,
// of consideration, would be consid; concis, of concise, conci) is kept
// with a word that names it, and a
// prefix whose terms include it is still searched as its terms, finding
// what FTS5's prefix finds.
func TestIndexTerms_Restemmed(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	storetest.MustInscribe(t, stores(db), inscription("consideration-concise-constant"))
	raw, err := sql.Open("sqlite", db.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	words := map[string]string{}
	rows, err := raw.Query(`SELECT term, coalesce(word, '') FROM index_terms WHERE term >= 'con' AND term < 'coo'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var term, word string
		if err := rows.Scan(&term, &word); err != nil {
			t.Fatal(err)
		}
		words[term] = word
	}
	rows.Close()
	if words["consider"] != "consideration" || words["concis"] != "concise" || words["constant"] != "" || len(words) != 3 {
		t.Fatalf("index_terms of con…: %v", words)
	}
	s := sqlite.NewSearcher(db)
	q := cairn.SearchQuery{Text: "con", Limit: 20, Steps: true}
	terms := mustSearch(t, s, q)
	restore := sqlite.SetPrefixTerms(0)
	prefix := mustSearch(t, s, q)
	restore()
	if len(terms) == 0 || len(terms) != len(prefix) {
		t.Fatalf("con: %d hits as terms, %d as a prefix", len(terms), len(prefix))
	}
	if m, err := sqlite.PrefixQuery(ctx, db, "con"); err != nil || m != `("concise" OR "consideration" OR "constant")` {
		t.Errorf("con is searched as %s (%v), want its three terms, concis and consider by their words", m, err)
	}
}
