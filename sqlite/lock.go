package sqlite

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"sync"
	"time"
)

// sessionLocks makes importers of one session take turns across
// processes: a one-byte record lock, at an offset hashed from the session
// ID, on a file beside the database (the database's own file is left to
// SQLite: closing another descriptor of it would drop SQLite's locks).
// Locks are per open file description (OFD locks where the system has
// them), so two stores open in one process exclude each other too; within
// one store a mutex per session does.
type sessionLocks struct {
	once sync.Once
	f    *os.File
	err  error
	mu   sync.Map // session ID → *sync.Mutex
}

// lockSpan is how many offsets sessions hash into: collisions only make
// two sessions' importers take turns.
const lockSpan = 1 << 20

// LockSession implements [cairn.InscriptionStore].
func (s *InscriptionStore) LockSession(ctx context.Context, sessionID string) (_ func(), err error) {
	defer s.db.explain(&err)
	l := &s.db.locks
	m, _ := l.mu.LoadOrStore(sessionID, new(sync.Mutex))
	mu := m.(*sync.Mutex)
	for !mu.TryLock() {
		if err := pause(ctx); err != nil {
			return nil, err
		}
	}
	l.once.Do(func() { l.f, l.err = os.OpenFile(s.db.Path+"-lock", os.O_RDWR|os.O_CREATE, 0o644) })
	if l.err != nil {
		// Without the file (a read-only folder) importers still race
		// safely; they only read again after losing.
		return mu.Unlock, nil
	}
	h := fnv.New64a()
	h.Write([]byte(sessionID))
	off := int64(h.Sum64() % lockSpan)
	for {
		ok, err := tryLockByte(l.f, off)
		if err != nil {
			return mu.Unlock, nil
		}
		if ok {
			break
		}
		if err := pause(ctx); err != nil {
			mu.Unlock()
			return nil, err
		}
	}
	return func() {
		unlockByte(l.f, off)
		mu.Unlock()
	}, nil
}

// tryLockSession takes the lock [InscriptionStore.LockSession] takes,
// without waiting: ok is false while any importer of the session, in this
// process or another, holds it (or, without the lock file, whether one
// does cannot be told).
func (s *InscriptionStore) tryLockSession(sessionID string) (unlock func(), ok bool) {
	l := &s.db.locks
	m, _ := l.mu.LoadOrStore(sessionID, new(sync.Mutex))
	mu := m.(*sync.Mutex)
	if !mu.TryLock() {
		return nil, false
	}
	l.once.Do(func() { l.f, l.err = os.OpenFile(s.db.Path+"-lock", os.O_RDWR|os.O_CREATE, 0o644) })
	if l.err != nil {
		mu.Unlock()
		return nil, false
	}
	h := fnv.New64a()
	h.Write([]byte(sessionID))
	off := int64(h.Sum64() % lockSpan)
	if ok, err := tryLockByte(l.f, off); err != nil || !ok {
		mu.Unlock()
		return nil, false
	}
	return func() {
		unlockByte(l.f, off)
		mu.Unlock()
	}, true
}

// pause waits a few milliseconds before trying a lock again.
func pause(ctx context.Context) error {
	select {
	case <-time.After(time.Duration(1+rand.IntN(5)) * time.Millisecond):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *sessionLocks) close() {
	if l.f != nil {
		l.f.Close()
	}
}
