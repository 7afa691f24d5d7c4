package sqlite

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	msqlite "modernc.org/sqlite"
)

// A WriteTx is one write transaction as SQLite counted it on the writing
// connection: the pages it read, from the page cache or the file, from
// its BEGIN to its COMMIT (search-index merges at commit included), and
// how long that took.
type WriteTx struct {
	Pages int
	Span  time.Duration
}

// WatchWrites records each write transaction on db from now until the
// function it returns is called, which returns them. The pages are a
// measure of the work done under the write lock that does not depend on
// how busy the machine is.
func (db *DB) WatchWrites(tb testing.TB) (stop func() []WriteTx) {
	tb.Helper()
	conn, err := db.db.Conn(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	var (
		mu       sync.Mutex
		txs      []WriteTx
		began    time.Time
		watching = true
	)
	err = conn.Raw(func(dc any) error {
		st := dc.(msqlite.DBStatus)
		pages := func() int {
			hit, _, _ := st.Status(msqlite.DBStatusCacheHit, true)
			miss, _, _ := st.Status(msqlite.DBStatusCacheMiss, true)
			return hit + miss
		}
		end := func() {
			mu.Lock()
			defer mu.Unlock()
			if watching && !began.IsZero() {
				txs = append(txs, WriteTx{Pages: pages(), Span: time.Since(began)})
			}
			began = time.Time{}
		}
		h := dc.(msqlite.HookRegisterer)
		h.RegisterCommitHook(func() int32 { end(); return 0 })
		h.RegisterRollbackHook(end)
		// BEGIN is prepared as it runs: its authorization marks the start.
		return dc.(msqlite.AuthorizerRegisterer).RegisterAuthorizer(func(action msqlite.AuthorizerActionCode, arg1, _, _, _ string) msqlite.AuthorizerReturnCode {
			if action == msqlite.AuthTransaction && strings.EqualFold(arg1, "BEGIN") {
				mu.Lock()
				began = time.Now()
				pages()
				mu.Unlock()
			}
			return msqlite.AuthorizerOK
		})
	})
	if err != nil {
		tb.Fatal(err)
	}
	return func() []WriteTx {
		mu.Lock()
		defer mu.Unlock()
		watching = false
		return txs
	}
}

// DropRanges deletes the staged blocks of session id of token ("" for
// any), knowing the session's block ids in them (nil: not known), as a
// reindex deletes the old blocks it hid.
func (s *InscriptionStore) DropRanges(ctx context.Context, id, token string, ids []int64) error {
	return s.dropRanges(ctx, id, token, 0, ids)
}
