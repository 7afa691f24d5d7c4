package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"sync"
)

// The writer's statements are kept prepared from one transaction to the
// next. SQLite compiles a statement each time it is prepared, and
// database/sql prepares one for every Exec or Query given text: an import
// of 1 GB runs a few dozen statements for each of thousands of
// inscriptions, and compiling them took a tenth of its writer's time. A
// statement prepared on the pool ([sql.DB.PrepareContext]) is kept by
// database/sql for each connection it was prepared on, and a transaction
// on that connection takes it through [sql.Tx.StmtContext] without
// compiling it again. It can be prepared on the pool only while no
// transaction holds the writer's one connection: a statement a
// transaction runs is prepared by the transaction itself the first time,
// and on the pool before the next write transaction begins.
//
// Only statements of one SQL statement are kept, and at most
// stmtCacheMax of them: a query whose text varies with its arguments (an
// IN list) makes a new text for each length.

const stmtCacheMax = 256

// A stmtCache holds the writer pool's kept statements.
type stmtCache struct {
	mu     sync.Mutex
	stmts  map[string]*sql.Stmt
	wanted map[string]bool // run by a transaction, to prepare on the pool
}

// get returns the kept statement for query, or nil; a query not kept yet
// is noted, to be prepared by prepareWanted.
func (c *stmtCache) get(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.stmts[query]; ok {
		return s
	}
	if len(c.stmts)+len(c.wanted) < stmtCacheMax && !strings.Contains(strings.TrimRight(query, "; \t\n"), ";") {
		if c.wanted == nil {
			c.wanted = map[string]bool{}
		}
		c.wanted[query] = true
	}
	return nil
}

// prepareWanted prepares on pool the statements noted since it last ran;
// one that does not prepare now (a table a transaction makes) is left to
// the transactions to prepare.
func (c *stmtCache) prepareWanted(ctx context.Context, pool *sql.DB) {
	c.mu.Lock()
	wanted := c.wanted
	c.wanted = nil
	c.mu.Unlock()
	for query := range wanted {
		s, err := pool.PrepareContext(ctx, query)
		if err != nil {
			continue
		}
		c.mu.Lock()
		if _, ok := c.stmts[query]; ok {
			s.Close()
		} else {
			if c.stmts == nil {
				c.stmts = map[string]*sql.Stmt{}
			}
			c.stmts[query] = s
		}
		c.mu.Unlock()
	}
}

// reset closes the kept statements and forgets the wanted ones.
func (c *stmtCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.stmts {
		s.Close()
	}
	c.stmts, c.wanted = nil, nil
}

// prepared returns the transaction's statement for query: the writer
// pool's kept one, else one prepared for the transaction the first time;
// database/sql closes it when the transaction ends (a kept statement
// stays prepared on its connection).
func (tx *Tx) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if stmt, ok := tx.stmts[query]; ok {
		return stmt, nil
	}
	var stmt *sql.Stmt
	if kept := tx.kept(query); kept != nil {
		stmt = tx.StmtContext(ctx, kept)
	} else {
		var err error
		if stmt, err = tx.Tx.PrepareContext(ctx, query); err != nil {
			return nil, err
		}
	}
	if tx.stmts == nil {
		tx.stmts = map[string]*sql.Stmt{}
	}
	tx.stmts[query] = stmt
	return stmt, nil
}

// kept returns the writer pool's kept statement for query, or nil (and
// always nil in a read transaction).
func (tx *Tx) kept(query string) *sql.Stmt {
	if !tx.write {
		return nil
	}
	return tx.db.stmts.get(query)
}

// ExecContext runs query, through the transaction's statement for it in a
// write transaction.
func (tx *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if !tx.write {
		return tx.Tx.ExecContext(ctx, query, args...)
	}
	stmt, err := tx.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return stmt.ExecContext(ctx, args...)
}

// QueryContext runs query, through the transaction's statement for it in
// a write transaction.
func (tx *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if !tx.write {
		return tx.Tx.QueryContext(ctx, query, args...)
	}
	stmt, err := tx.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return stmt.QueryContext(ctx, args...)
}

// QueryRowContext runs query, through the transaction's statement for it
// in a write transaction.
func (tx *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if !tx.write {
		return tx.Tx.QueryRowContext(ctx, query, args...)
	}
	stmt, err := tx.prepared(ctx, query)
	if err != nil {
		// A Row holds an error only as a query's: this one fails as the
		// statement did.
		return tx.Tx.QueryRowContext(ctx, query, args...)
	}
	return stmt.QueryRowContext(ctx, args...)
}
