package sqlite

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/cairn-dev/cairn"
)

// Group commit. An import parses several files at once, and each of its
// batches used to be a write transaction of its own: 2,190 commits for a
// corpus of 1 GB, most of them of a small session, each paying for its
// commit, its WAL frames (the pages of the sessions table, of the search
// index's structure, of the b-trees' inner nodes, written again by every
// transaction) and a segment of the search index of its own that FTS5
// then merges. Inscriptions that wait for the write lock while another is
// written are written together, in one transaction, when it is free:
// each is stored whole or not at all, as alone, and its caller returns
// once the transaction that holds it is committed, so nothing reported
// stored can be lost by a kill.
//
// A group is bounded as one inscription is: at most groupBlocks blocks and
// groupBytes of lines (an import's batch, [inscribe.DefaultBatchBytes]),
// but for a single inscription larger than that, so the write lock is held
// no longer than for the largest batch an import writes alone.

// groupBlocks and groupBytes bound what one group transaction writes.
var (
	groupBlocks = stageBlocks
	groupBytes  = 8 << 20
)

// A grouper queues the inscriptions waiting for the write lock of one
// DB. The caller whose inscription finds no transaction running leads:
// it writes groups off the queue until its own is written, then hands the
// lead to the oldest waiter, if any.
type grouper struct {
	mu      sync.Mutex
	queue   []*grouped
	leading bool
}

// A grouped inscription waits for its group's transaction.
type grouped struct {
	ctx    context.Context
	in     *cairn.Inscription // its blocks those pulled ahead
	chunks []chunk
	src    *lineSource
	blocks int
	bytes  int
	old    *retired      // the old blocks its transaction hid, if any
	done   chan error    // its result, once its transaction ended
	lead   chan struct{} // closed when its caller is to lead
}

// inscribeGrouped writes in, whose blocks are pending, in a group
// transaction.
func (s *InscriptionStore) inscribeGrouped(ctx context.Context, in *cairn.Inscription, pending [][]*cairn.Block, src *lineSource) error {
	e := &grouped{ctx: ctx, src: src, done: make(chan error, 1), lead: make(chan struct{})}
	in2 := *in
	in2.Blocks, in2.BlockSeq = nil, func(yield func([]*cairn.Block) bool) {
		for _, b := range pending {
			if !yield(b) {
				return
			}
		}
	}
	e.in = &in2
	for _, b := range pending {
		e.blocks += len(b)
	}
	for _, l := range in.Lines {
		e.bytes += len(l.Raw)
	}
	src.prepare(pending)
	e.chunks = makeChunks(in.Lines)

	g := &s.db.group
	g.mu.Lock()
	g.queue = append(g.queue, e)
	if g.leading {
		g.mu.Unlock()
		select {
		case err := <-e.done:
			return s.settle(in, e, err)
		case <-e.lead:
		}
	} else {
		g.leading = true
		g.mu.Unlock()
	}
	for {
		select {
		case err := <-e.done:
			g.mu.Lock()
			if len(g.queue) > 0 {
				close(g.queue[0].lead)
			} else {
				g.leading = false
			}
			g.mu.Unlock()
			return s.settle(in, e, err)
		default:
		}
		s.writeGroup(ctx, g.take())
	}
}

// settle gives in the source position its group's transaction stored (a
// new generation may have been raised past older ones), or says which
// session failed.
func (s *InscriptionStore) settle(in *cairn.Inscription, e *grouped, err error) error {
	if err != nil {
		return fmt.Errorf("inscribe %s: %w", in.Session.ID, err)
	}
	in.Source = e.in.Source
	s.dropRetired(e.ctx, e.old)
	return nil
}

// take removes from the queue the oldest inscriptions that fit in one
// group, one a session: a second of a session waits for the next group.
func (g *grouper) take() []*grouped {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*grouped
	rest := g.queue[:0]
	blocks, bytes := 0, 0
	sessions := map[string]bool{}
	for _, e := range g.queue {
		id := e.in.Session.ID
		if sessions[id] || len(out) > 0 && (blocks+e.blocks > groupBlocks || bytes+e.bytes > groupBytes) {
			rest = append(rest, e)
			continue
		}
		out = append(out, e)
		sessions[id] = true
		blocks, bytes = blocks+e.blocks, bytes+e.bytes
	}
	clear(g.queue[len(rest):])
	g.queue = rest
	return out
}

// writeGroup writes es in one transaction and gives each its result. An
// inscription refused before anything of it was written (stale, invalid)
// is left out of the transaction; any other failure rolls the whole
// transaction back and each inscription is written again alone, so each
// gets its own error.
func (s *InscriptionStore) writeGroup(ctx context.Context, es []*grouped) {
	live := es[:0:0]
	for _, e := range es {
		if err := e.ctx.Err(); err != nil {
			e.done <- err
			continue
		}
		live = append(live, e)
	}
	if len(live) == 0 {
		return
	}
	if len(live) == 1 {
		live[0].done <- s.writeAlone(live[0])
		return
	}
	errs := make([]error, len(live))
	err := func() error {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		// One statement indexes every block of the group as it commits
		// (Tx.Commit): FTS5 writes a segment of the index at each
		// statement that adds to it, and merging many small segments cost
		// more than writing them.
		for i, e := range live {
			if err := precheck(ctx, tx, e.in); err != nil {
				errs[i] = err
				continue
			}
			var steps cairn.StepCounter
			old, err := inscribe(ctx, tx, e.in, e.chunks, &steps, math.MaxInt64, e.src)
			if err != nil {
				return err
			}
			e.old = old
		}
		return tx.Commit()
	}()
	for i, e := range live {
		switch {
		case errs[i] != nil:
			e.done <- errs[i]
		case err != nil:
			e.done <- s.writeAlone(e)
		default:
			e.done <- nil
		}
	}
}

// writeAlone writes e in a transaction of its own.
func (s *InscriptionStore) writeAlone(e *grouped) (err error) {
	tx, err := s.db.BeginTx(e.ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var steps cairn.StepCounter
	e.old, err = inscribe(e.ctx, tx, e.in, e.chunks, &steps, math.MaxInt64, e.src)
	if err != nil {
		return err
	}
	return tx.Commit()
}
