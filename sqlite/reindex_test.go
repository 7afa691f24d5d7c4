package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"cairn"
	"cairn/sqlite"
	"cairn/storetest"
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
	err := st.Inscription.Reindex(ctx, func(sess *cairn.Session, lines []*cairn.Line) (*cairn.Inscription, error) {
		word := map[string]string{early: "early", huge: "newword", late: "late"}[sess.ID]
		in := wideSession(sess.ID, map[string]int{early: 8, huge: n, late: 8}[sess.ID], word)
		in.Session, in.Lines = sess, lines
		return in, nil
	}, nil)
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
