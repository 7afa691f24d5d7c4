package inscribe

import (
	"context"
	"sync"
)

// A flight bounds the bytes of the files an import holds at once: a file
// read for import holds its lines, and what they parse into, until they
// are stored, and files are read several at a time so that the store's
// writer finds others' batches waiting, to write in one transaction.
// Each file takes what it may hold: its size, or two batches (one parsed
// while the other is stored) if that is less.
type flight struct {
	mu   sync.Mutex
	cond *sync.Cond
	free int64
}

func newFlight(limit int64) *flight {
	f := &flight{free: limit}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// take waits until n bytes are free, or ctx ends, and takes them. n more
// than the limit waits until nothing else is taken, then takes it all.
func (f *flight) take(ctx context.Context, n, limit int64) bool {
	n = min(n, limit)
	stop := context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cond.Broadcast()
	})
	defer stop()
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.free < n {
		if ctx.Err() != nil {
			return false
		}
		f.cond.Wait()
	}
	f.free -= n
	return true
}

// give returns n bytes taken with the same limit.
func (f *flight) give(n, limit int64) {
	n = min(n, limit)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.free += n
	f.cond.Broadcast()
}
