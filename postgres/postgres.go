// Package postgres implements cairn's store interfaces on PostgreSQL, for
// teams whose agents on many machines share one store. It keeps the layout
// and the semantics of package sqlite: the same tables, append-only lines
// with generations, rounds replaced from an inscription's FromSeq, usage
// counted once per message, tags kept apart from rounds. Search uses
// PostgreSQL's own text search ('simple' configuration, ts_rank,
// ts_headline).
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"cairn"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migration/*.sql
var migrationFS embed.FS

// DB is a cairn store in a PostgreSQL database (or in the schema its DSN's
// search_path names).
type DB struct {
	pool    *pgxpool.Pool
	lockers chan struct{} // connections LockSession may hold at once
	name    string        // the store as messages name it: its URL without the password
	newer   string        // the newest migration recorded in the store that this cairn lacks

	// DSN is the connection string: a postgres:// URL or key=value pairs.
	DSN string

	// Now returns the current time; tests replace it for stable output.
	Now func() time.Time

	// ConnectTimeout bounds connecting (and Open as a whole), so a server
	// that does not answer fails a command instead of hanging it; a DSN's
	// connect_timeout wins. StatementTimeout is the server's
	// statement_timeout unless the DSN sets one. Zero keeps the defaults.
	ConnectTimeout   time.Duration
	StatementTimeout time.Duration
}

// Default timeouts: a few seconds to connect; statements long enough for
// a large import batch. Hooks set shorter ones.
const (
	DefaultConnectTimeout   = 5 * time.Second
	DefaultStatementTimeout = 60 * time.Second
)

// NewDB returns a DB for dsn; call [DB.Open] before use.
func NewDB(dsn string) *DB {
	return &DB{DSN: dsn, Now: time.Now}
}

// Open connects and migrates the database to the newest schema.
func (db *DB) Open() (err error) {
	defer db.explain(&err)
	if db.DSN == "" {
		return cairn.Errorf(cairn.EINVALID, "PostgreSQL DSN required.")
	}
	cfg, err := pgxpool.ParseConfig(db.DSN)
	if err != nil {
		return cairn.Errorf(cairn.EINVALID, "The PostgreSQL DSN cannot be read: %v.", err)
	}
	db.name = redact(cfg)
	connect, statement := db.ConnectTimeout, db.StatementTimeout
	if connect <= 0 {
		connect = DefaultConnectTimeout
	}
	if statement <= 0 {
		statement = DefaultStatementTimeout
	}
	if !strings.Contains(db.DSN, "connect_timeout") {
		cfg.ConnConfig.ConnectTimeout = connect
	} else {
		connect = max(connect, cfg.ConnConfig.ConnectTimeout)
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["statement_timeout"]; !ok {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(statement.Milliseconds(), 10)
	}
	// Opening connects and checks the schema: bounded as a whole, so a
	// server that accepts and then stays silent cannot hang it.
	ctx, cancel := context.WithTimeout(context.Background(), connect+statement)
	defer cancel()
	db.lockers = make(chan struct{}, max(1, int(cfg.MaxConns)-2))
	if db.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return err
	}
	if err := db.migrate(ctx); err != nil {
		db.pool.Close()
		return err
	}
	return nil
}

// redact names the database without its password, for error messages.
func redact(cfg *pgxpool.Config) string {
	return fmt.Sprintf("postgres://%s@%s:%d/%s", cfg.ConnConfig.User, cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
}

// migrationLock is the advisory lock key that serializes migrations: many
// agents may open a fresh store at once.
const migrationLock = 0x636169726e // "cairn"

// migrate runs each embedded migration not yet recorded, one transaction each.
func (db *DB) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrationFS, "migration/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	if db.current(ctx, names) {
		return nil
	}
	for _, name := range names {
		if err := db.migrateFile(ctx, name); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// current reports whether every migration in names is recorded, without
// taking the migration lock: opening an up-to-date store never waits
// behind another process's migration or writes. Any error says "not
// known to be current", and migrate takes the lock to find out. A
// recorded migration not in names (a newer cairn's) is kept in db.newer,
// for the message of a query the newer schema fails.
func (db *DB) current(ctx context.Context, names []string) bool {
	rows, err := db.pool.Query(ctx, `SELECT name FROM migrations`)
	if err != nil {
		return false
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var name string
		if rows.Scan(&name) != nil {
			return false
		}
		done[name] = true
	}
	if rows.Err() != nil {
		return false
	}
	for _, name := range names {
		if !done[name] {
			return false
		}
		delete(done, name)
	}
	for name := range done {
		db.newer = max(db.newer, path.Base(name))
	}
	return true
}

func (db *DB) migrateFile(ctx context.Context, name string) error {
	return db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY)`); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM migrations WHERE name = $1`, name).Scan(&n); err != nil || n > 0 {
			return err
		}
		buf, err := fs.ReadFile(migrationFS, name)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, string(buf)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO migrations (name) VALUES ($1)`, name)
		return err
	})
}

// Close closes every connection.
func (db *DB) Close() error {
	if db.pool != nil {
		db.pool.Close()
	}
	return nil
}

// Tx is a transaction stamped with the time it began.
type Tx struct {
	pgx.Tx
	db  *DB
	now time.Time
}

// BeginTx starts a transaction.
func (db *DB) BeginTx(ctx context.Context, opts pgx.TxOptions) (_ *Tx, err error) {
	defer db.explain(&err)
	tx, err := db.pool.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &Tx{Tx: tx, db: db, now: db.Now().UTC().Truncate(time.Millisecond)}, nil
}

// read starts a read-only transaction that sees one snapshot throughout.
func (db *DB) read(ctx context.Context) (*Tx, error) {
	return db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
}

// Limits of [DB.write]'s retries.
const (
	maxAttempts = 12
	firstDelay  = 5 * time.Millisecond
	maxDelay    = 500 * time.Millisecond
)

// write runs fn in a read-write transaction and commits it. A transaction
// that PostgreSQL aborted to resolve a conflict with another (a
// serialization failure or a deadlock) is run again from the start after a
// randomized, growing pause, so these errors never reach the user while
// retrying can succeed; fn must therefore be safe to run more than once.
func (db *DB) write(ctx context.Context, fn func(tx *Tx) error) error {
	delay := firstDelay
	for attempt := 1; ; attempt++ {
		err := db.writeOnce(ctx, fn)
		if err == nil || !retryable(err) || attempt == maxAttempts {
			return err
		}
		select {
		case <-time.After(delay/2 + rand.N(delay)):
		case <-ctx.Done():
			return err
		}
		delay = min(2*delay, maxDelay)
	}
}

func (db *DB) writeOnce(ctx context.Context, fn func(tx *Tx) error) error {
	tx, err := db.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// retryable reports whether err is PostgreSQL asking for the transaction
// to be run again: serialization_failure or deadlock_detected.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

// nullTime stores the zero time as NULL, an unknown time.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

// scanTime reads a nullable timestamptz column as UTC, the zero time for NULL.
type scanTime struct{ t *time.Time }

// Scan implements [database/sql.Scanner], which pgx honours.
func (s scanTime) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*s.t = time.Time{}
	case time.Time:
		*s.t = v.UTC()
	default:
		return fmt.Errorf("cannot scan %T into a time", src)
	}
	return nil
}
