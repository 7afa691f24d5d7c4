package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cairn-dev/cairn"

	modernc "modernc.org/sqlite"
)

// The search index is filled by one statement per transaction, run as
// the transaction commits ([Tx.Commit]), not a statement per few rows or
// per session: FTS5 writes its pending terms out as a new segment, to be
// merged with others later, whenever a statement of the transaction opens
// a savepoint (each multi-row INSERT does, the index's own included, for
// its statement journal), so an index written as each session's blocks
// were was flushed by the next session's. Written at commit it is flushed once per
// transaction, and each 1 MB of pending terms (FTS5's hashsize). Its
// text was read from blocks.content by SQL; a block's text may now be a
// view of its line (view.go), which SQL cannot read, so the index texts
// are computed in Go, as the blocks are written, and handed to the
// statement through pendingFunc, keyed by a token the statement names.
// Texts past pendingLimit bytes are written by a statement of their own,
// so that a huge message's index is not held whole.

// pendingFunc is the SQL name of the function that returns a pending
// index text: pendingFunc(token, block id).
const pendingFunc = "cairn_pending_index"

// pendingLimit bounds the index text a pendingIndex holds.
const pendingLimit = 16 << 20

// pendingIndexes are the pending indexes by token.
var (
	pendingIndexes sync.Map // int64 → *pendingIndex
	pendingTokens  atomic.Int64
)

// A pendingIndex is the index text of blocks written but not yet indexed.
type pendingIndex struct {
	token  int64
	texts  map[int64]string
	lo, hi int64 // the least and greatest ids held
	size   int
	kept   []string // ids whose search entries stand, not inserted again ([pendingIndex.settleUnindexed])
}

func newPendingIndex() *pendingIndex {
	return &pendingIndex{token: pendingTokens.Add(1), texts: map[int64]string{}}
}

// indexText is the text the search index reads for b: each word once
// (words.go). unicode61 splits words at the ASCII punctuation SearchText
// turns into spaces, so only a text it rewrites further
// ([cairn.SearchTextRewrites]) goes through SearchText, which copies a
// text with a path in it and builds one with any other non-ASCII
// character rune by rune (a thirtieth of an import's CPU).
func indexText(b *cairn.Block) string {
	t := cairn.IndexText(b.Kind, b.ToolName, b.Content)
	if cairn.SearchTextRewrites(t) {
		t = cairn.SearchText(t)
	}
	return indexWords(t)
}

// addText holds t, the index text of b, whose id is set.
func (p *pendingIndex) addText(b *cairn.Block, t string) {
	if len(p.texts) == 0 {
		p.lo, p.hi = b.ID, b.ID
	}
	// A block deleted in the transaction may give its id to one written
	// after it: the statement reads only the blocks there are.
	p.lo, p.hi = min(p.lo, b.ID), max(p.hi, b.ID)
	p.texts[b.ID] = t
	p.size += len(t)
}

func (p *pendingIndex) full() bool { return p.size >= pendingLimit }

// write indexes the held texts in one statement and lets them go.
func (p *pendingIndex) write(ctx context.Context, tx *Tx) error {
	if err := p.settleUnindexed(ctx, tx); err != nil {
		return err
	}
	if len(p.texts) == 0 {
		return nil
	}
	pendingIndexes.Store(p.token, p)
	defer pendingIndexes.Delete(p.token)
	standing := ""
	if len(p.kept) > 0 {
		standing = ` AND id NOT IN (` + strings.Join(p.kept, ",") + `)`
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO blocks_fts (rowid, content)
		SELECT id, `+pendingFunc+`(?1, id) FROM blocks WHERE id BETWEEN ?2 AND ?3 AND searchable = 1`+standing, p.token, p.lo, p.hi); err != nil {
		return err
	}
	if err := writeLengths(ctx, tx, p.lo, p.hi); err != nil {
		return err
	}
	if err := writeTerms(ctx, tx, p.texts); err != nil {
		return err
	}
	clear(p.texts)
	p.size = 0
	return nil
}

// pendingIndex returns the transaction's pending index, made on first
// use.
func (tx *Tx) pendingIndex() *pendingIndex {
	if tx.index == nil {
		tx.index = newPendingIndex()
	}
	return tx.index
}

// Commit writes the transaction's pending index, then commits; the
// pieces whose terms it wrote are then known to the DB (terms.go).
func (tx *Tx) Commit() error {
	if tx.index != nil || len(tx.unindexed) > 0 {
		if err := tx.pendingIndex().write(tx.db.ctx, tx); err != nil {
			tx.Tx.Rollback()
			return err
		}
	}
	if err := tx.Tx.Commit(); err != nil {
		return err
	}
	if tx.terms.n > 0 {
		tx.db.terms.add(&tx.terms, tx.termsPruned)
	}
	return nil
}

func init() {
	modernc.MustRegisterDeterministicScalarFunction(pendingFunc, 2, func(_ *modernc.FunctionContext, args []driver.Value) (driver.Value, error) {
		token, _ := args[0].(int64)
		id, _ := args[1].(int64)
		p, ok := pendingIndexes.Load(token)
		if !ok {
			return nil, errors.New("no pending index texts")
		}
		t, ok := p.(*pendingIndex).texts[id]
		if !ok {
			return nil, errors.New("a block without its pending index text")
		}
		return t, nil
	})
}
