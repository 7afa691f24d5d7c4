package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/storetest"
)

// TestReindex_BoundedTransactions: no transaction of the reindex of a
// huge session does work that grows with the session (issue #27: the
// write lock is never held for seconds by one huge message). The work is
// counted, not timed: the pages each write transaction reads, which a
// busy machine does not change. A session of 16 times the blocks is
// reindexed with no transaction reading more than 4 times the pages of
// the smaller one's largest: a deeper B-tree and the search index's
// merges of what the staging transactions wrote take 2.3 times; the
// deletion of the old blocks reading the session's every entry of
// blocks_round, twice a transaction (0.2 s each for a million blocks),
// took 9.8 times.
func TestReindex_BoundedTransactions(t *testing.T) {
	const per = 64 // blocks a staging transaction writes
	small := reindexWrites(t, per, 1<<10)
	large := reindexWrites(t, per, 16<<10)
	if len(large) < (16<<10)/per {
		t.Fatalf("%d write transactions for %d blocks, %d to a staging transaction: the reindex was not staged", len(large), 16<<10, per)
	}
	ms, ml := heaviest(small), heaviest(large)
	t.Logf("%d blocks: %d write transactions, at most %d pages (%v); %d blocks: %d, at most %d pages (%v)",
		1<<10, len(small), ms.Pages, ms.Span, 16<<10, len(large), ml.Pages, ml.Span)
	if ml.Pages > 4*ms.Pages {
		t.Errorf("a transaction of the reindex of %d blocks read %d pages, of %d blocks at most %d: its work grows with the session",
			16<<10, ml.Pages, 1<<10, ms.Pages)
	}
}

func heaviest(txs []sqlite.WriteTx) sqlite.WriteTx {
	return slices.MaxFunc(txs, func(a, b sqlite.WriteTx) int { return a.Pages - b.Pages })
}

// reindexWrites stores a session of n blocks between two small ones,
// reindexes the store with staging transactions of per blocks, checks
// what it holds after, and returns the reindex's write transactions.
func reindexWrites(t *testing.T, per, n int) []sqlite.WriteTx {
	ctx := context.Background()
	db := MustOpenDB(t)
	st := stores(db)
	restore := sqlite.SetStaging(1<<20, 0)
	early, huge, late := "ab000000-0000-0000-0000-000000000001", "ab000000-0000-0000-0000-000000000002", "ab000000-0000-0000-0000-000000000003"
	storetest.MustInscribe(t, st, wideSession(early, 8, "early"))
	storetest.MustInscribe(t, st, wideSession(huge, n, "oldword"))
	storetest.MustInscribe(t, st, wideSession(late, 8, "late"))
	restore()
	defer sqlite.SetStaging(per, 0)()
	stop := db.WatchWrites(t)
	err := storetest.Reindex(ctx, st, func(sess *cairn.Session, lines []*cairn.Line) (*cairn.Inscription, error) {
		word := map[string]string{early: "early", huge: "newword", late: "late"}[sess.ID]
		in := wideSession(sess.ID, map[string]int{early: 8, huge: n, late: 8}[sess.ID], word)
		in.Session, in.Lines = sess, lines
		return in, nil
	})
	txs := stop()
	if err != nil {
		t.Fatal(err)
	}
	for word, want := range map[string]bool{"newword": true, "oldword": false, "early": true, "late": true} {
		hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: word})
		if err != nil || (len(hits) > 0) != want {
			t.Errorf("search %q after the reindex: %d hits, %v", word, len(hits), err)
		}
	}
	rtx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rtx.Rollback()
	var staged, blocks int
	if err := rtx.QueryRow(`SELECT (SELECT COUNT(*) FROM staged_blocks), (SELECT COUNT(*) FROM blocks)`).Scan(&staged, &blocks); err != nil {
		t.Fatal(err)
	}
	if staged != 0 || blocks != n+16 {
		t.Errorf("after the reindex: %d staged ranges, %d blocks; want 0, %d", staged, blocks, n+16)
	}
	return txs
}

// wideSession is a session of 4 rounds, each one line of blocks blocks
// (a million, as a message can hold, in the real case): a prompt, then
// thinking and, one in 16, an answer holding word. Its blocks come in
// slices of 16, as a reader hands over a wide line's.
func wideSession(id string, blocks int, word string) *cairn.Inscription {
	s := &cairn.Session{ID: id, Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport, Project: "/p"}
	in := &cairn.Inscription{Session: s, Source: cairn.Source{SessionID: id, Path: "/t/" + id + ".jsonl"}}
	at := time.Date(2026, 3, 19, 10, 23, 0, 0, time.UTC)
	for i := 1; i <= 4; i++ {
		raw := fmt.Sprintf(`{"n":%d}`+"\n", i)
		in.Rounds = append(in.Rounds, &cairn.Round{SessionID: id, Seq: i, StartedAt: at, EndedAt: at, FirstLine: i, LastLine: i})
		in.Lines = append(in.Lines, &cairn.Line{SessionID: id, No: i, Offset: in.Source.Offset, Raw: []byte(raw),
			Type: "user", UUID: fmt.Sprintf("u-%d", i), Timestamp: at, RoundSeq: i, Status: cairn.LineOK})
		in.Source.Offset += int64(len(raw))
		in.Source.Lines++
		in.Blocks = append(in.Blocks, &cairn.Block{SessionID: id, RoundSeq: i, LineNo: i, Role: "user", Kind: cairn.UserText, Timestamp: at, Content: fmt.Sprintf("prompt %d", i)})
		for j := 1; j < blocks/4; j++ {
			b := &cairn.Block{SessionID: id, RoundSeq: i, LineNo: i, Index: j, Role: "assistant", Kind: cairn.Thinking, Timestamp: at, Content: fmt.Sprintf("musing %d.%d", i, j)}
			if j%16 == 1 {
				b.Kind, b.Content = cairn.AssistantText, fmt.Sprintf("%s %d.%d", word, i, j)
			}
			in.Blocks = append(in.Blocks, b)
		}
	}
	in.BlockSeq = func(yield func([]*cairn.Block) bool) {
		for b := range slices.Chunk(in.Blocks, 16) {
			if !yield(b) {
				return
			}
		}
	}
	return in
}

// TestDropRanges_Interleaved: a staged range of one session that spans
// another's blocks (a session imported a round at a time, between
// others) is deleted a few ids to a transaction, the session's blocks
// and search entries only, whether the session's ids are known (a
// reindex deleting what it hid) or not (the next import deleting what a
// killed one left).
func TestDropRanges_Interleaved(t *testing.T) {
	for _, known := range []bool{true, false} {
		t.Run(fmt.Sprintf("ids known %v", known), func(t *testing.T) {
			defer sqlite.SetStaging(3, 0)()
			ctx := context.Background()
			db := MustOpenDB(t)
			st := stores(db)
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			// 10 blocks of a, then 7 of b, 10 of a and 7 of b, the
			// blocks of the first 3 of each run searchable.
			if _, err := tx.Exec(`INSERT INTO session_nums (num, session_id) VALUES (1, 'a'), (2, 'b')`); err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for run := range 4 {
				sess, word, n := "a", "hidden", 10
				if run%2 == 1 {
					sess, word, n = "b", "kept", 7
				}
				for i := range n {
					res, err := tx.Exec(`INSERT INTO blocks (session_num, round_seq, line_no, idx, role, kind, timestamp, content, searchable)
						VALUES ((SELECT num FROM session_nums WHERE session_id = ?), 1, 1, ?, 'assistant', 'text', 0, ?, ?)`, sess, i, fmt.Sprintf("%s %d", word, i), i < 3)
					if err != nil {
						t.Fatal(err)
					}
					id, _ := res.LastInsertId()
					if sess == "a" {
						ids = append(ids, id)
					}
					if i < 3 {
						if _, err := tx.Exec(`INSERT INTO blocks_fts (rowid, content) VALUES (?, ?)`, id, fmt.Sprintf("%s %d", word, i)); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			if _, err := tx.Exec(`INSERT INTO staged_blocks (session_num, token, lo, hi) VALUES (1, 'x-old', ?, ?)`, ids[0], ids[len(ids)-1]); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "hidden"}); err != nil || len(hits) != 0 {
				t.Fatalf("search of hidden blocks: %d hits, %v; want none", len(hits), err)
			}
			stop := db.WatchWrites(t)
			if err := sqlite.NewInscriptionStore(db).DropRanges(ctx, "a", "x-old", map[bool][]int64{true: ids}[known]); err != nil {
				t.Fatal(err)
			}
			// 3 ids a transaction: each run of a's in 4, b's skipped;
			// else the 27 ids from a's first to its last in 9.
			if n, want := len(stop()), map[bool]int{true: 8, false: 9}[known]; n != want {
				t.Errorf("%d transactions, want %d", n, want)
			}
			rtx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer rtx.Rollback()
			var a, b, staged int
			if err := rtx.QueryRow(`SELECT (SELECT COUNT(*) FROM blocks WHERE session_num = 1), (SELECT COUNT(*) FROM blocks WHERE session_num = 2),
				(SELECT COUNT(*) FROM staged_blocks)`).Scan(&a, &b, &staged); err != nil {
				t.Fatal(err)
			}
			if a != 0 || b != 14 || staged != 0 {
				t.Errorf("after the deletion: %d blocks of a, %d of b, %d staged ranges; want 0, 14, 0", a, b, staged)
			}
			var fts int
			if err := rtx.QueryRow(`SELECT COUNT(*) FROM blocks_fts WHERE blocks_fts MATCH 'kept'`).Scan(&fts); err != nil || fts != 6 {
				t.Errorf("search entries of b: %d, %v; want 6", fts, err)
			}
			if err := rtx.QueryRow(`SELECT COUNT(*) FROM blocks_fts WHERE blocks_fts MATCH 'hidden'`).Scan(&fts); err != nil || fts != 0 {
				t.Errorf("search entries of a: %d, %v; want 0", fts, err)
			}
		})
	}
}
