package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/storetest"
)

// The sessions of the retire tests: a huge one between two small ones.
const (
	retireEarly = "ac000000-0000-0000-0000-000000000001"
	retireHuge  = "ac000000-0000-0000-0000-000000000002"
	retireLate  = "ac000000-0000-0000-0000-000000000003"
)

// retireStore stores a session of n blocks holding "oldword" between two
// small ones, each written in one transaction.
func retireStore(t *testing.T, n int) (*sqlite.DB, *storetest.Store) {
	t.Helper()
	db := MustOpenDB(t)
	st := stores(db)
	defer sqlite.SetStaging(1<<20, 0)()
	storetest.MustInscribe(t, st, wideSession(retireEarly, 8, "early"))
	storetest.MustInscribe(t, st, wideSession(retireHuge, n, "oldword"))
	storetest.MustInscribe(t, st, wideSession(retireLate, 8, "late"))
	// The search index as one segment, as a store's old entries end up:
	// else the first transaction watched merges the segments written
	// here, whose size is the session's.
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO blocks_fts (blocks_fts) VALUES ('optimize')`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return db, st
}

// renewed is the huge session of n blocks as an import of its
// transcript edited in place inscribes it: whole, as a new generation.
func renewed(n int, word string) *cairn.Inscription {
	in := wideSession(retireHuge, n, word)
	in.Reset = true
	return in
}

// appended is the huge session's last round, of n/4 blocks, inscribed
// again as an import does when a line was appended to it.
func appended(n int, word string) *cairn.Inscription {
	in := wideSession(retireHuge, n, word)
	in.FromSeq = 4
	in.Rounds, in.Lines = in.Rounds[3:], in.Lines[3:]
	var blocks []*cairn.Block
	for _, b := range in.Blocks {
		if b.RoundSeq == 4 {
			blocks = append(blocks, b)
		}
	}
	in.Blocks, in.BlockSeq = blocks, func(yield func([]*cairn.Block) bool) {
		for b := range slices.Chunk(blocks, 16) {
			if !yield(b) {
				return
			}
		}
	}
	return in
}

// stored counts what the store holds: every block row, the staged
// ranges, and the rounds search finds by word.
func stored(t *testing.T, db *sqlite.DB, st *storetest.Store, word string) (blocks, staged, hits int) {
	t.Helper()
	ctx := context.Background()
	rtx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rtx.Rollback()
	if err := rtx.QueryRow(`SELECT (SELECT COUNT(*) FROM blocks), (SELECT COUNT(*) FROM staged_blocks)`).Scan(&blocks, &staged); err != nil {
		t.Fatal(err)
	}
	found, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: word, Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return blocks, staged, len(found)
}

// TestRetire_Bounded: an import that replaces a huge session's rounds
// (its transcript edited in place, or a line appended to its huge last
// round) hides the old blocks in its transaction and deletes them after,
// a part to a transaction: no write transaction does work that grows
// with the session (issue #27: the write lock was held 13.7 s by the
// re-import of an edited million-block message). Counted in pages read,
// as TestReindex_BoundedTransactions does, not timed.
func TestRetire_Bounded(t *testing.T) {
	const per = 64
	for _, c := range []struct {
		name  string
		again func(n int, word string) *cairn.Inscription
		hits  int // rounds search finds by the new word
		old   int // by the old word: the rounds not replaced
	}{
		{"edited", renewed, 4, 0},
		{"appended", appended, 1, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			heaviest := map[int]sqlite.WriteTx{}
			for _, n := range []int{1 << 10, 16 << 10} {
				db, st := retireStore(t, n)
				restore := sqlite.SetStaging(per, 0)
				stop := db.WatchWrites(t)
				storetest.MustInscribe(t, st, c.again(n, "newword"))
				txs := stop()
				restore()
				heaviest[n] = heaviestTx(txs)
				blocks, staged, hits := stored(t, db, st, "newword")
				_, _, old := stored(t, db, st, "oldword")
				if blocks != n+16 || staged != 0 || hits != c.hits || old != c.old {
					t.Errorf("%d blocks: after the import %d block rows, %d staged ranges, rounds found by the new word %d, by the old %d; want %d, 0, %d, %d",
						n, blocks, staged, hits, old, n+16, c.hits, c.old)
				}
				t.Logf("%d blocks: %d write transactions, at most %d pages (%v)", n, len(txs), heaviest[n].Pages, heaviest[n].Span)
			}
			if s, l := heaviest[1<<10], heaviest[16<<10]; l.Pages > 4*s.Pages {
				t.Errorf("a transaction of the import replacing %d blocks read %d pages, of %d blocks at most %d: its work grows with the session",
					16<<10, l.Pages, 1<<10, s.Pages)
			}
		})
	}
}

func heaviestTx(txs []sqlite.WriteTx) sqlite.WriteTx {
	var h sqlite.WriteTx
	for _, tx := range txs {
		if tx.Pages > h.Pages {
			h = tx
		}
	}
	return h
}

// TestRetire_Killed: killed after the transaction that hid the old
// blocks, an import leaves them where no reader sees them, and the next
// import of the session deletes them; a drop of a huge session killed
// the same way leaves its blocks to the next drop.
func TestRetire_Killed(t *testing.T) {
	const n = 4 << 10
	ctx := context.Background()
	db, st := retireStore(t, n)
	defer sqlite.SetStaging(256, 0)()
	restore := sqlite.KeepRetired()
	storetest.MustInscribe(t, st, renewed(n, "newword"))
	blocks, staged, old := stored(t, db, st, "oldword")
	if blocks != 2*n+16 || staged != 1 || old != 0 {
		t.Fatalf("killed after hiding: %d block rows, %d staged ranges, %d hits of the old word; want %d, 1, 0", blocks, staged, old, 2*n+16)
	}
	if rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: retireHuge}); err != nil || len(rounds) != 4 {
		t.Fatalf("rounds of the session: %d, %v; want 4", len(rounds), err)
	}
	restore()
	storetest.MustInscribe(t, st, appended(n, "newword"))
	if blocks, staged, hits := stored(t, db, st, "newword"); blocks != n+16 || staged != 0 || hits != 4 {
		t.Errorf("after the next import: %d block rows, %d staged ranges, %d rounds found; want %d, 0, 4", blocks, staged, hits, n+16)
	}

	restore = sqlite.KeepRetired()
	at := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	if err := st.Keep.DropSessions(ctx, []string{retireHuge}, at); err != nil {
		t.Fatal(err)
	}
	if blocks, staged, hits := stored(t, db, st, "newword"); blocks != n+16 || staged != 1 || hits != 0 {
		t.Fatalf("drop killed after hiding: %d block rows, %d staged ranges, %d hits; want %d, 1, 0", blocks, staged, hits, n+16)
	}
	restore()
	if err := st.Keep.DropSessions(ctx, nil, at); err != nil {
		t.Fatal(err)
	}
	if blocks, staged, _ := stored(t, db, st, "newword"); blocks != 16 || staged != 0 {
		t.Errorf("after the next drop: %d block rows, %d staged ranges; want 16, 0", blocks, staged)
	}
}

// TestDropSessions_Bounded: dropping a huge session deletes its blocks a
// part to a transaction.
func TestDropSessions_Bounded(t *testing.T) {
	const per = 64
	ctx := context.Background()
	heaviest := map[int]sqlite.WriteTx{}
	for _, n := range []int{1 << 10, 16 << 10} {
		db, st := retireStore(t, n)
		restore := sqlite.SetStaging(per, 0)
		stop := db.WatchWrites(t)
		if err := st.Keep.DropSessions(ctx, []string{retireHuge}, time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		txs := stop()
		restore()
		heaviest[n] = heaviestTx(txs)
		if blocks, staged, hits := stored(t, db, st, "oldword"); blocks != 16 || staged != 0 || hits != 0 {
			t.Errorf("%d blocks: after the drop %d block rows, %d staged ranges, %d hits; want 16, 0, 0", n, blocks, staged, hits)
		}
		if s, err := st.Sessions.FindSessionByID(ctx, retireHuge); err == nil {
			t.Errorf("%d blocks: session %s still found after its drop", n, s.ID)
		}
	}
	if s, l := heaviest[1<<10], heaviest[16<<10]; l.Pages > 4*s.Pages {
		t.Errorf("a transaction of the drop of %d blocks read %d pages, of %d blocks at most %d: its work grows with the session",
			16<<10, l.Pages, 1<<10, s.Pages)
	}
}

// TestRetire_Concurrent: three handles on one store (as three processes
// have) each import the huge session edited in place, again and again,
// from the position each read, as an importer does, their staged and
// retired ranges crossing; a reader meanwhile counts the session's
// visible blocks. Every import is stored or refused as stale (another
// import stored first, or dropped what it staged, as the next import of a
// session does), the reader never sees anything but one whole version,
// and once the imports stop one more leaves the store exactly it.
func TestRetire_Concurrent(t *testing.T) {
	const n = 2 << 10
	ctx := context.Background()
	db, st := retireStore(t, n)
	defer sqlite.SetStaging(128, 0)()
	var handles []*storetest.Store
	for range 3 {
		handles = append(handles, stores(MustOpenDBAt(t, db.Path)))
	}
	stop := watchVisible(db, n)
	var wg sync.WaitGroup
	var kept, stale atomic.Int32
	for i, h := range handles {
		wg.Go(func() {
			for j := range 4 {
				in := renewed(n, fmt.Sprintf("word%d%d", i, j))
				prev, err := h.Inscription.FindSource(ctx, retireHuge)
				if err != nil {
					t.Errorf("import %d.%d: %v", i, j, err)
					return
				}
				in.Prev = prev
				err = h.Inscription.Inscribe(ctx, in)
				switch {
				case err == nil:
					kept.Add(1)
				case errors.Is(err, cairn.ErrStale):
					stale.Add(1)
				default:
					t.Errorf("import %d.%d: %v", i, j, err)
				}
			}
		})
	}
	wg.Wait()
	if err := stop(); err != nil {
		t.Error(err)
	}
	t.Logf("%d imports stored, %d refused as stale", kept.Load(), stale.Load())
	if kept.Load() == 0 {
		t.Fatal("no import was stored")
	}
	storetest.MustInscribe(t, st, renewed(n, "final"))
	if blocks, staged, hits := stored(t, db, st, "final"); blocks != n+16 || staged != 0 || hits != 4 {
		t.Errorf("after the last import: %d block rows, %d staged ranges, %d rounds found; want %d, 0, 4", blocks, staged, hits, n+16)
	}
}

// watchVisible counts, again and again until the function it returns is
// called, the huge session's blocks a reader sees, and returns the first
// count that is not n.
func watchVisible(db *sqlite.DB, n int) (stop func() error) {
	ctx := context.Background()
	done := make(chan struct{})
	seen := make(chan error, 1)
	go func() {
		defer close(seen)
		for {
			select {
			case <-done:
				return
			default:
			}
			var visible int
			rtx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
			if err != nil {
				seen <- err
				return
			}
			err = rtx.QueryRow(`SELECT COUNT(*) FROM blocks b WHERE session_num = (SELECT num FROM session_nums WHERE session_id = ?)
				AND NOT EXISTS (SELECT 1 FROM staged_blocks p WHERE p.session_num = b.session_num AND p.lo <= b.id AND b.id <= p.hi)`, retireHuge).Scan(&visible)
			if err == nil && visible != n {
				err = fmt.Errorf("the reader saw %d blocks of the session, want %d", visible, n)
			}
			rtx.Rollback()
			if err != nil {
				seen <- err
				return
			}
		}
	}()
	return func() error {
		close(done)
		return <-seen
	}
}

// TestRetire_ConcurrentReindex: reindexes of the store run while two
// handles import the huge session edited in place; the reader never sees
// two versions at once (a reindex moves no position, so an import that
// staged its blocks while a reindex published found nothing amiss and
// published beside it), and a last import leaves the store exactly it.
func TestRetire_ConcurrentReindex(t *testing.T) {
	const n = 2 << 10
	ctx := context.Background()
	db, st := retireStore(t, n)
	defer sqlite.SetStaging(128, 0)()
	stop := watchVisible(db, n)
	var wg sync.WaitGroup
	for i := range 2 {
		h := stores(MustOpenDBAt(t, db.Path))
		wg.Go(func() {
			for j := range 4 {
				in := renewed(n, fmt.Sprintf("word%d%d", i, j))
				prev, err := h.Inscription.FindSource(ctx, retireHuge)
				if err == nil {
					in.Prev = prev
					err = h.Inscription.Inscribe(ctx, in)
				}
				if err != nil && !errors.Is(err, cairn.ErrStale) {
					t.Errorf("import %d.%d: %v", i, j, err)
				}
			}
		})
	}
	r := stores(MustOpenDBAt(t, db.Path))
	wg.Go(func() {
		for range 3 {
			err := storetest.Reindex(ctx, r, func(sess *cairn.Session, lines []*cairn.Line) (*cairn.Inscription, error) {
				in := wideSession(sess.ID, map[string]int{retireEarly: 8, retireHuge: n, retireLate: 8}[sess.ID], "reindexed")
				in.Session, in.Lines = sess, lines
				return in, nil
			})
			if err != nil {
				t.Errorf("reindex: %v", err)
			}
		}
	})
	wg.Wait()
	if err := stop(); err != nil {
		t.Error(err)
	}
	storetest.MustInscribe(t, st, renewed(n, "final"))
	if blocks, staged, hits := stored(t, db, st, "final"); blocks != n+16 || staged != 0 || hits != 4 {
		t.Errorf("after the last import: %d block rows, %d staged ranges, %d rounds found; want %d, 0, 4", blocks, staged, hits, n+16)
	}
}
