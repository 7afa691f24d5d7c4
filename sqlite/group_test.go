package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
)

// inscribeHeld inscribes ins at once, each from a goroutine of its own,
// while the store's writer is held, then lets the writer go: the
// inscriptions are written as they would be when found waiting behind a
// long transaction. It returns each one's error and the transactions
// used.
func inscribeHeld(t *testing.T, db *sqlite.DB, ins []*cairn.Inscription) ([]error, int) {
	t.Helper()
	queued, release := sqlite.HoldGroups(db)
	st := sqlite.NewInscriptionStore(db)
	errs := make([]error, len(ins))
	var wg sync.WaitGroup
	for i, in := range ins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = st.Inscribe(context.Background(), in)
		}()
	}
	for deadline := time.Now().Add(10 * time.Second); queued() < len(ins); {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d inscriptions queued", queued(), len(ins))
		}
		time.Sleep(time.Millisecond)
	}
	n := release()
	wg.Wait()
	return errs, n
}

// wantStored checks that session id is stored whole: its round, its two
// lines and its search entries (one hit a round).
func wantStored(t *testing.T, db *sqlite.DB, id string) {
	t.Helper()
	st := stores(db)
	ctx := context.Background()
	s, err := st.Sessions.FindSessionByID(ctx, id)
	if err != nil || s.Rounds != 1 || s.Lines != 2 {
		t.Fatalf("session %s = %+v, %v; want 1 round of 2 lines", id, s, err)
	}
	hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: id})
	if err != nil || len(hits) != 1 {
		t.Fatalf("search %q: %d hits, %v; want its round", id, len(hits), err)
	}
	for _, h := range hits {
		if h.SessionID != id {
			t.Fatalf("search %q found session %s", id, h.SessionID)
		}
	}
}

func wantAbsent(t *testing.T, db *sqlite.DB, id string) {
	t.Helper()
	ctx := context.Background()
	if _, err := sqlite.NewInscriptionStore(db).FindSource(ctx, id); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatalf("session %s: %v; want nothing stored", id, err)
	}
	if hits, err := sqlite.NewSearcher(db).Search(ctx, cairn.SearchQuery{Text: id}); err != nil || len(hits) != 0 {
		t.Fatalf("search %q: %d hits, %v; want none", id, len(hits), err)
	}
}

func groupInscriptions(n int) ([]*cairn.Inscription, []string) {
	var ins []*cairn.Inscription
	var ids []string
	for i := range n {
		id := fmt.Sprintf("grp%02d", i)
		ids = append(ids, id)
		ins = append(ins, inscription(id))
	}
	return ins, ids
}

// TestInscribe_Grouped: inscriptions of many sessions that wait for the
// writer are written in one transaction, each whole, search entries
// included; one refused before it is written (another import moved its
// session on) is refused alone; one that fails while it is written
// rolls its group back, whose others are then written one by one.
func TestInscribe_Grouped(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		db := MustOpenDB(t)
		ins, ids := groupInscriptions(20)
		errs, txs := inscribeHeld(t, db, ins)
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if txs != 1 {
			t.Fatalf("20 waiting inscriptions written in %d transactions, want 1", txs)
		}
		for _, id := range ids {
			wantStored(t, db, id)
		}
	})
	t.Run("Stale", func(t *testing.T) {
		db := MustOpenDB(t)
		ins, ids := groupInscriptions(5)
		ins[2].Prev = &cairn.Source{Offset: 99, Lines: 2}
		errs, txs := inscribeHeld(t, db, ins)
		if txs != 1 {
			t.Fatalf("written in %d transactions, want 1", txs)
		}
		for i, id := range ids {
			if i == 2 {
				if !errors.Is(errs[i], cairn.ErrStale) {
					t.Fatalf("stale inscription: %v, want ErrStale", errs[i])
				}
				wantAbsent(t, db, id)
				continue
			}
			if errs[i] != nil {
				t.Fatalf("%s: %v", id, errs[i])
			}
			wantStored(t, db, id)
		}
	})
	t.Run("FailsWhileWritten", func(t *testing.T) {
		db := MustOpenDB(t)
		ins, ids := groupInscriptions(5)
		bad := ins[3]
		bad.Rounds = append(bad.Rounds, bad.Rounds[0]) // the same round twice
		errs, _ := inscribeHeld(t, db, ins)
		for i, id := range ids {
			if i == 3 {
				if errs[i] == nil {
					t.Fatal("an inscription of one round twice was stored")
				}
				wantAbsent(t, db, id)
				continue
			}
			if errs[i] != nil {
				t.Fatalf("%s failed with the bad inscription of its group: %v", id, errs[i])
			}
			wantStored(t, db, id)
		}
	})
	t.Run("Bounded", func(t *testing.T) {
		defer sqlite.SetGroupBlocks(5)()
		db := MustOpenDB(t)
		ins, ids := groupInscriptions(10) // 2 blocks each: 2 to a group
		errs, txs := inscribeHeld(t, db, ins)
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if txs != 5 {
			t.Fatalf("10 inscriptions of 2 blocks, at most 5 blocks to a transaction: %d transactions, want 5", txs)
		}
		for _, id := range ids {
			wantStored(t, db, id)
		}
	})
	t.Run("OneSessionTwice", func(t *testing.T) {
		db := MustOpenDB(t)
		a, b := inscription("twice"), inscription("twice")
		a.Reset, b.Reset = true, true // each a generation, whichever comes first
		errs, txs := inscribeHeld(t, db, []*cairn.Inscription{a, b})
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if txs != 2 {
			t.Fatalf("two inscriptions of one session in %d transactions, want 2", txs)
		}
		if src, err := sqlite.NewInscriptionStore(db).FindSource(context.Background(), "twice"); err != nil || src.Generation != 1 {
			t.Fatalf("source = %+v, %v; want the second generation", src, err)
		}
	})
}
