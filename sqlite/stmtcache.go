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
// transaction runs is run as text the first time, and prepared on the
// pool before the next write transaction begins.
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

// prepared returns the transaction's statement for query, preparing it
// for the transaction the first time unless the writer pool keeps it;
// database/sql closes it when the transaction ends (a kept statement
// stays prepared on its connection).
func (tx *Tx) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if stmt := tx.stmt(ctx, query); stmt != nil {
		return stmt, nil
	}
	stmt, err := tx.Tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	tx.hold(query, stmt)
	return stmt, nil
}

// stmt returns the transaction's statement for query, if it has one or
// the writer pool keeps one (taken for the transaction the first time),
// else nil.
func (tx *Tx) stmt(ctx context.Context, query string) *sql.Stmt {
	if stmt, ok := tx.stmts[query]; ok {
		return stmt
	}
	if !tx.write {
		return nil
	}
	kept := tx.db.stmts.get(query)
	if kept == nil {
		return nil
	}
	stmt := tx.StmtContext(ctx, kept)
	tx.hold(query, stmt)
	return stmt
}

// hold keeps stmt as the transaction's statement for query.
func (tx *Tx) hold(query string, stmt *sql.Stmt) {
	if tx.stmts == nil {
		tx.stmts = map[string]*sql.Stmt{}
	}
	tx.stmts[query] = stmt
}

// ExecContext runs query, through the transaction's statement for it if
// there is one ([Tx.stmt]).
func (tx *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if stmt := tx.stmt(ctx, query); stmt != nil {
		return stmt.ExecContext(ctx, args...)
	}
	return tx.Tx.ExecContext(ctx, query, args...)
}

// QueryContext runs query, through the transaction's statement for it if
// there is one ([Tx.stmt]).
func (tx *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if stmt := tx.stmt(ctx, query); stmt != nil {
		return stmt.QueryContext(ctx, args...)
	}
	return tx.Tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs query, through the transaction's statement for it
// if there is one ([Tx.stmt]).
func (tx *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if stmt := tx.stmt(ctx, query); stmt != nil {
		return stmt.QueryRowContext(ctx, args...)
	}
	return tx.Tx.QueryRowContext(ctx, query, args...)
}
