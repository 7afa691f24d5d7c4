package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"sync"
	"sync/atomic"

	"cairn"

	modernc "modernc.org/sqlite"
)

// The search index is filled by one statement per transaction, not a
// statement per few rows: FTS5 writes its pending terms out at every
// statement, and many small segments to merge took most of an import's
// time. Its text was read from blocks.content by SQL; a block's text may
// now be a view of its line (view.go), which SQL cannot read, so the
// index texts are computed in Go, as the blocks are written, and handed
// to the statement through pendingFunc, keyed by a token the statement
// names. Texts past pendingLimit bytes are written by a statement of
// their own, so that a huge message's index is not held whole.

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
	lo, hi int64 // the ids held
	size   int
}

func newPendingIndex() *pendingIndex {
	return &pendingIndex{token: pendingTokens.Add(1), texts: map[int64]string{}}
}

// indexText is the text the search index reads for b.
func indexText(b *cairn.Block) string {
	return cairn.SearchText(cairn.IndexText(b.Kind, b.ToolName, b.Content))
}

// addText holds t, the index text of b, whose id is set.
func (p *pendingIndex) addText(b *cairn.Block, t string) {
	if len(p.texts) == 0 {
		p.lo = b.ID
	}
	p.texts[b.ID], p.hi = t, b.ID
	p.size += len(t)
}

func (p *pendingIndex) full() bool { return p.size >= pendingLimit }

// write indexes the held texts in one statement and lets them go.
func (p *pendingIndex) write(ctx context.Context, tx *Tx) error {
	if len(p.texts) == 0 {
		return nil
	}
	pendingIndexes.Store(p.token, p)
	defer pendingIndexes.Delete(p.token)
	if _, err := tx.ExecContext(ctx, `INSERT INTO blocks_fts (rowid, content)
		SELECT id, `+pendingFunc+`(?1, id) FROM blocks WHERE id BETWEEN ?2 AND ?3 AND searchable = 1`, p.token, p.lo, p.hi); err != nil {
		return err
	}
	clear(p.texts)
	p.size = 0
	return nil
}

func (p *pendingIndex) close() { pendingIndexes.Delete(p.token) }

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
