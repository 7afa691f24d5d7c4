package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"

	"github.com/google/go-cmp/cmp"
)

// refillQueries are searched before and after migration 0014: words,
// prefixes, a run of CJK characters and snake_case (phrases).
var refillQueries = []string{"error handling", "test", "README", "go build", "function", "ファイル", "確認します", "tool_use", "session_id", "の"}

// oldMatch is the FTS5 query search made before migration 0014: a word
// that the tokenizer splits is a phrase, which that layout could match.
func oldMatch(text string) string {
	var terms []string
	for _, w := range cairn.QueryWords(text) {
		w = cairn.PrefixWord(w)
		prefix, isPrefix := strings.CutSuffix(w, "*")
		t := `"` + strings.Join(strings.Fields(cairn.SearchText(strings.ReplaceAll(prefix, "*", " "))), " ") + `"`
		if isPrefix {
			t += "*"
		}
		terms = append(terms, t)
	}
	return strings.Join(terms, " ")
}

// matchedRounds returns the rounds (session/seq) whose blocks match the
// FTS5 query match in the index of the store at path, read without
// opening it as a store (which would migrate it).
func matchedRounds(tb testing.TB, path, match string) []string {
	tb.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`SELECT DISTINCT n.session_id || '/' || b.round_seq FROM blocks_fts f JOIN blocks b ON b.id = f.rowid JOIN session_nums n ON n.num = b.session_num
		WHERE blocks_fts MATCH ? ORDER BY 1`, match)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var r string
		rows.Scan(&r)
		out = append(out, r)
	}
	return out
}

// searchedRounds returns the rounds (session/seq) Search finds for text.
func searchedRounds(tb testing.TB, s *sqlite.Searcher, text string) []string {
	tb.Helper()
	hits, err := s.Search(context.Background(), cairn.SearchQuery{Text: text, Limit: 100000})
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s/%d", h.SessionID, h.RoundSeq))
	}
	slices.Sort(out)
	return out
}

// indexState reads, without migrating, whether migrations 0014 and 0020
// are recorded, whether their refill is under way, the index's layout and how
// many blocks it holds against how many it should.
func indexState(tb testing.TB, path string) (recorded, refilling bool, ddl string, indexed, searchable int) {
	tb.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	if err := raw.QueryRow(`SELECT
		(SELECT COUNT(*) = 2 FROM migrations WHERE name LIKE '%0014%' OR name LIKE '%0020%'),
		(SELECT COUNT(*) FROM sqlite_master WHERE name = 'refill'),
		(SELECT sql FROM sqlite_master WHERE name = 'blocks_fts'),
		(SELECT COUNT(*) FROM blocks_fts_docsize),
		(SELECT COUNT(*) FROM blocks WHERE searchable = 1)`).Scan(&recorded, &refilling, &ddl, &indexed, &searchable); err != nil {
		tb.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO blocks_fts (blocks_fts) VALUES ('integrity-check')`); err != nil {
		tb.Fatalf("the index fails its integrity check: %v", err)
	}
	return
}

// oldIndexStore imports the real transcripts into a store at path and
// gives it the search index of before migration 0014; it returns the
// rounds each of refillQueries matched there.
func oldIndexStore(t *testing.T, path string) map[string][]string {
	t.Helper()
	importInto(t, path, realTranscripts(t))
	if err := sqlite.OldIndex(path); err != nil {
		t.Fatal(err)
	}
	recorded, refilling, ddl, indexed, searchable := indexState(t, path)
	if recorded || refilling || strings.Contains(ddl, "detail") || indexed != searchable {
		t.Fatalf("old index: 0014 recorded %v, refilling %v, %q, %d of %d blocks", recorded, refilling, ddl, indexed, searchable)
	}
	before := map[string][]string{}
	found := 0
	for _, q := range refillQueries {
		before[q] = matchedRounds(t, path, oldMatch(q))
		if len(before[q]) > 0 {
			found++
		}
	}
	counts := make([]int, len(refillQueries))
	for i, q := range refillQueries {
		counts[i] = len(before[q])
	}
	t.Logf("rounds matched by %q: %v", refillQueries, counts)
	if found < len(refillQueries)-2 {
		t.Fatalf("the sample store matches only %d of the queries: %v", found, before)
	}
	return before
}

// checkMigrated checks that the store at path has the new index, whole,
// and that search finds the rounds before holds for each query.
func checkMigrated(t *testing.T, path string, before map[string][]string) {
	t.Helper()
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	recorded, refilling, ddl, indexed, searchable := indexState(t, path)
	if !recorded || refilling || !strings.Contains(ddl, "detail = none") || indexed != searchable {
		t.Fatalf("after the migration: 0014 recorded %v, refilling %v, %q, %d of %d blocks indexed", recorded, refilling, ddl, indexed, searchable)
	}
	if _, err := sqlite.CheckTerms(context.Background(), db); err != nil {
		t.Errorf("after the migration: %v", err)
	}
	if _, err := sqlite.CheckLengths(context.Background(), db); err != nil {
		t.Errorf("after the migration: %v", err)
	}
	s := sqlite.NewSearcher(db)
	for _, q := range refillQueries {
		if diff := cmp.Diff(before[q], searchedRounds(t, s, q)); diff != "" {
			t.Errorf("%q finds other rounds after the migration (-before +after):\n%s", q, diff)
		}
	}
}

// TestRefill: opening a store whose index keeps positions rebuilds it
// without (migrations 0014 and 0020: detail=none), from the blocks, texts viewed in their lines
// included; every query finds the same rounds as before.
func TestRefill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	before := oldIndexStore(t, path)
	defer sqlite.SetRefill(50, nil)()
	checkMigrated(t, path, before)
}

// TestRefill_Killed kills a child opening an old store (which migrates
// it) at random points; after each kill the store has the old index
// whole, or the new one in part with the rest listed, or the new one
// whole, and passes FTS5's integrity check; the next open carries on, and at the end
// every query finds the same rounds as before.
func TestRefill_Killed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	before := oldIndexStore(t, path)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 14))
	kills, partial := 0, 0
	for i := 0; i < 40; i++ {
		done := killChild(t, rng, "TestRefillChild", "CAIRN_REFILL_CHILD="+path, 6)
		recorded, refilling, ddl, indexed, searchable := indexState(t, path)
		if recorded && refilling {
			t.Fatalf("kill %d: 0014 recorded and refilling", i)
		}
		if !recorded && !refilling && (strings.Contains(ddl, "detail") || indexed != searchable) {
			t.Fatalf("kill %d: neither migrated nor refilling, with %q and %d of %d blocks indexed", i, ddl, indexed, searchable)
		}
		if recorded && indexed != searchable {
			t.Fatalf("kill %d: migrated with %d of %d blocks indexed", i, indexed, searchable)
		}
		if refilling && indexed > 0 && indexed < searchable {
			partial++
		}
		if !done {
			kills++
		}
		if done || kills == 8 {
			break
		}
	}
	t.Logf("%d kills midway, %d of them with the index in part", kills, partial)
	if kills < 3 || partial < 1 {
		t.Errorf("%d children killed midway (%d in part), want 3 at least, one in part", kills, partial)
	}
	defer sqlite.SetRefill(50, nil)()
	checkMigrated(t, path, before)
}

// TestRefillChild is the child TestRefill_Killed kills: it opens the
// store, refilling its index 20 blocks to a transaction and printing a
// line after each.
func TestRefillChild(t *testing.T) {
	path := os.Getenv("CAIRN_REFILL_CHILD")
	if path == "" {
		t.Skip("run by TestRefill_Killed")
	}
	sqlite.SetRefill(20, func() { fmt.Println("refilled") })
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	fmt.Println("done")
}

// TestRefill_Concurrent: processes that open an old store at once share
// its refill, each carrying on from where the others are; every open
// succeeds, and the index is whole once.
func TestRefill_Concurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	before := oldIndexStore(t, path)
	defer sqlite.SetRefill(10, nil)()
	errs := make(chan error, 3)
	for range cap(errs) {
		go func() {
			db := sqlite.NewDB(path)
			err := db.Open()
			db.Close()
			errs <- err
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	checkMigrated(t, path, before)
}

// TestRefill_Damaged: a chunk whose bytes no longer decode does not keep
// an old store from opening: the blocks that view its lines are indexed
// without words, every other block as before, and the migration is
// recorded.
func TestRefill_Damaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	oldIndexStore(t, path)
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var session string
	var views int
	err = raw.QueryRow(`SELECT n.session_id, COUNT(*) FROM blocks b JOIN session_nums n ON n.num = b.session_num WHERE b.span IS NOT NULL AND b.searchable = 1
		GROUP BY 1 ORDER BY 2 DESC LIMIT 1`).Scan(&session, &views)
	if err == nil {
		_, err = raw.Exec(`UPDATE chunks SET data = zeroblob(length(data)) WHERE session_id = ?`, session)
	}
	raw.Close()
	if err != nil || views == 0 {
		t.Fatalf("damaging a session's chunks: %v (%d views)", err, views)
	}
	defer sqlite.SetRefill(50, nil)()
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatalf("open with a damaged chunk: %v", err)
	}
	defer db.Close()
	recorded, refilling, _, indexed, searchable := indexState(t, path)
	if !recorded || refilling || indexed != searchable {
		t.Fatalf("0014 recorded %v, refilling %v, %d of %d blocks indexed", recorded, refilling, indexed, searchable)
	}
	hits, err := sqlite.NewSearcher(db).Search(context.Background(), cairn.SearchQuery{Text: "function", Limit: 100})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search after the refill: %d hits, %v", len(hits), err)
	}
	for _, h := range hits {
		if h.SessionID == session {
			t.Errorf("a hit in the damaged session %s: %+v", session, h)
		}
	}
	t.Logf("%d blocks of session %s indexed without words", views, session)
}

// TestRefill_Bounded: an open bounded by RefillFor (a hook's) indexes
// part of an old store's index again and returns, saying how much was
// left; each such open carries on from where the last stopped, and an
// unbounded open finishes it. An up-to-date store has nothing to say.
func TestRefill_Bounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	before := oldIndexStore(t, path)
	defer sqlite.SetRefill(20, nil)()
	open := func(bound time.Duration) (told []int64) {
		t.Helper()
		db := sqlite.NewDB(path)
		db.RefillFor = bound
		db.OnRefill = func(left int64) { told = append(told, left) }
		if err := db.Open(); err != nil {
			t.Fatal(err)
		}
		db.Close()
		return told
	}
	last := 0
	for i := range 2 {
		told := open(time.Nanosecond)
		_, refilling, ddl, indexed, searchable := indexState(t, path)
		if !refilling || !strings.Contains(ddl, "detail = none") || indexed <= last || indexed >= searchable {
			t.Fatalf("bounded open %d: refilling %v, %q, %d of %d blocks indexed (%d before)", i, refilling, ddl, indexed, searchable, last)
		}
		if len(told) != 1 || told[0] < int64(searchable-last) {
			t.Fatalf("bounded open %d told %v, want once, at least the %d blocks left", i, told, searchable-last)
		}
		last = indexed
	}
	if told := open(0); len(told) != 1 {
		t.Fatalf("the unbounded open told %v, want once", told)
	}
	checkMigrated(t, path, before)
	if told := open(time.Nanosecond); len(told) != 0 {
		t.Fatalf("an up-to-date store told %v", told)
	}
}
