package postgres

import (
	"context"
	"math/rand/v2"
	"time"
)

// LockSession implements [cairn.InscriptionStore] with a session-level
// advisory lock held on a connection of its own until unlock, tried
// without waiting and again every few milliseconds (a blocking wait would
// run into statement_timeout). Lockers never take the pool's last
// connections (the lock holder needs them to finish): without one to
// spare, importers race unlocked and rely on the position check alone.
func (s *InscriptionStore) LockSession(ctx context.Context, sessionID string) (_ func(), err error) {
	defer s.db.explain(&err)
	if err := s.db.up(); err != nil {
		return nil, err
	}
	select {
	case s.db.lockers <- struct{}{}:
	default:
		return func() {}, nil
	}
	actx, cancel := s.db.bound(ctx, s.db.connectTimeout+s.db.statementTimeout)
	conn, err := s.db.pool.Acquire(actx)
	cancel()
	if err != nil {
		<-s.db.lockers
		return nil, err
	}
	key := "cairn import " + sessionID
	for {
		var ok bool
		qctx, cancel := s.db.statement(ctx)
		err := conn.QueryRow(qctx, `SELECT pg_try_advisory_lock(hashtextextended($1, 0))`, key).Scan(&ok)
		cancel()
		if err != nil {
			conn.Release()
			<-s.db.lockers
			return nil, err
		}
		if ok {
			break
		}
		select {
		case <-time.After(time.Duration(2+rand.IntN(8)) * time.Millisecond):
		case <-ctx.Done():
			conn.Release()
			<-s.db.lockers
			return nil, ctx.Err()
		}
	}
	return func() {
		// A fresh context: the lock must go even when ctx was cancelled;
		// if unlocking fails (or the server does not answer in time) the
		// connection is closed, which drops it.
		uctx, cancel := s.db.statement(context.Background())
		defer cancel()
		if _, err := conn.Exec(uctx, `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, key); err != nil {
			conn.Conn().Close(uctx)
		}
		conn.Release()
		<-s.db.lockers
	}, nil
}
