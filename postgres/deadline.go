package postgres

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A server that freezes (stopped, swapping, its host gone) enforces no
// statement_timeout, and the kernel of a stopped server's host still
// acknowledges every byte, so neither the server nor TCP ends a call that
// waits on it. The client does: every statement runs under a deadline of
// its own, the statement timeout plus [statementGrace] (so that a server
// alive but slow says so itself first), and connecting under the connect
// timeout. After a deadline passes, the store is taken to be down for a
// statement timeout: calls in that time fail at once instead of each
// waiting again, so a hook or a command that makes many calls ends in
// about one timeout. One call every probeEvery is let through meanwhile,
// bounded by probeTimeout: when it is answered the store is up again, so
// a server back is used at once (a viewer left running answered 500 for a
// whole statement timeout after it came back).
const (
	statementGrace = time.Second
	probeEvery     = time.Second
	probeTimeout   = 2 * time.Second
)

// errDown is the error of a call made while the store is taken to be down.
var errDown = errors.Join(errors.New("the server did not answer a moment ago"), context.DeadlineExceeded)

// statement returns ctx bounded by the statement timeout, and the function
// that releases it, which also records a deadline the server let pass.
func (db *DB) statement(ctx context.Context) (context.Context, context.CancelFunc) {
	return db.bound(ctx, db.statementTimeout+statementGrace)
}

// bound returns ctx with a deadline d from now (or the caller's, if
// earlier), or already past while the store is taken to be down, and the
// function that releases it; a deadline of bound's own that passes marks
// the store down.
func (db *DB) bound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	probe := false
	if db.up() != nil {
		if !db.claimProbe() {
			// Already past: a statement on a connection opened before the
			// freeze (another goroutine's, a session lock's unlock) fails
			// at once too, without putting the next try off further.
			return context.WithDeadline(ctx, time.Now())
		}
		probe, d = true, min(d, probeTimeout)
	}
	bctx, cancel := context.WithTimeout(ctx, d)
	return bctx, func() {
		switch {
		case errors.Is(bctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
			db.markDown()
		case probe && ctx.Err() == nil:
			db.downUntil.Store(0) // answered: up again
		}
		if probe {
			db.probing.Store(false)
		}
		cancel()
	}
}

// probeDue reports whether a call made now, while the store is taken to
// be down, would be let through as a probe.
func (db *DB) probeDue() bool {
	return !db.probing.Load() && time.Now().UnixNano()-db.lastProbe.Load() >= int64(probeEvery)
}

// claimProbe makes the caller the probe, if one is due.
func (db *DB) claimProbe() bool {
	if !db.probeDue() || !db.probing.CompareAndSwap(false, true) {
		return false
	}
	db.lastProbe.Store(time.Now().UnixNano())
	return true
}

// markDown records that the server did not answer in time.
func (db *DB) markDown() {
	now := time.Now()
	db.lastProbe.Store(now.UnixNano())
	db.downUntil.Store(now.Add(db.statementTimeout).UnixNano())
}

// up returns errDown while the store is taken to be down.
func (db *DB) up() error {
	if time.Now().UnixNano() < db.downUntil.Load() {
		return errDown
	}
	return nil
}

// timedOut reports whether err says that the server did not answer in
// time (a deadline, or a connection that timed out).
func timedOut(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout())
}

// Exec runs a statement under the statement deadline.
func (tx *Tx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	ctx, cancel := tx.db.statement(ctx)
	defer cancel()
	return tx.Tx.Exec(ctx, sql, args...)
}

// Query runs a query under the statement deadline, which holds until its
// rows are closed.
func (tx *Tx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	ctx, cancel := tx.db.statement(ctx)
	rows, err := tx.Tx.Query(ctx, sql, args...)
	if err != nil {
		cancel()
		return nil, err
	}
	return &boundRows{Rows: rows, cancel: cancel}, nil
}

// QueryRow runs a query under the statement deadline, which holds until
// its row is scanned.
func (tx *Tx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	ctx, cancel := tx.db.statement(ctx)
	return boundRow{row: tx.Tx.QueryRow(ctx, sql, args...), cancel: cancel}
}

// CopyFrom copies rows in under the statement deadline.
func (tx *Tx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	ctx, cancel := tx.db.statement(ctx)
	defer cancel()
	return tx.Tx.CopyFrom(ctx, table, cols, src)
}

// SendBatch sends a batch under the statement deadline, which holds until
// its results are closed.
func (tx *Tx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	ctx, cancel := tx.db.statement(ctx)
	return &boundBatch{BatchResults: tx.Tx.SendBatch(ctx, b), cancel: cancel}
}

// Commit commits under the statement deadline.
func (tx *Tx) Commit(ctx context.Context) error {
	ctx, cancel := tx.db.statement(ctx)
	defer cancel()
	defer tx.release()
	return tx.Tx.Commit(ctx)
}

// Rollback rolls back under the statement deadline (it is a no-op after
// a commit).
func (tx *Tx) Rollback(ctx context.Context) error {
	ctx, cancel := tx.db.statement(ctx)
	defer cancel()
	defer tx.release()
	return tx.Tx.Rollback(ctx)
}

type boundRows struct {
	pgx.Rows
	cancel context.CancelFunc
}

func (r *boundRows) Close() {
	r.Rows.Close()
	r.cancel()
}

type boundRow struct {
	row    pgx.Row
	cancel context.CancelFunc
}

func (r boundRow) Scan(dest ...any) error {
	defer r.cancel()
	return r.row.Scan(dest...)
}

type boundBatch struct {
	pgx.BatchResults
	cancel context.CancelFunc
}

func (b *boundBatch) Close() error {
	defer b.cancel()
	return b.BatchResults.Close()
}
