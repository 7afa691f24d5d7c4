package sqlite

import "context"

// HoldGroups makes every inscription into db wait in the group queue, as
// behind a long transaction, until release writes them as a leader
// would; release returns how many transactions it wrote them in.
func HoldGroups(db *DB) (queued func() int, release func() int) {
	g := &db.group
	g.mu.Lock()
	g.leading = true
	g.mu.Unlock()
	queued = func() int {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.queue)
	}
	release = func() int {
		s := NewInscriptionStore(db)
		for n := 0; ; n++ {
			g.mu.Lock()
			if len(g.queue) == 0 {
				g.leading = false
				g.mu.Unlock()
				return n
			}
			g.mu.Unlock()
			s.writeGroup(context.Background(), g.take())
		}
	}
	return queued, release
}

// SetGroupBlocks sets how many blocks a group transaction writes at most,
// for tests; it returns the function that restores it.
func SetGroupBlocks(n int) (restore func()) {
	b := groupBlocks
	groupBlocks = n
	return func() { groupBlocks = b }
}
