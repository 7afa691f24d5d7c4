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
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn"

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

	// The timeouts in force (Open resolves them), and until when the
	// store is taken to be down (UnixNano; see deadline.go).
	connectTimeout, statementTimeout time.Duration
	downUntil                        atomic.Int64
	lastProbe                        atomic.Int64 // UnixNano of the last call let through while down
	probing                          atomic.Bool

	// DSN is the connection string: a postgres:// URL or key=value pairs.
	DSN string

	// Now returns the current time; tests replace it for stable output.
	Now func() time.Time

	// ConnectTimeout bounds connecting, once for all of a name's
	// addresses, so a server that does not answer fails a command instead
	// of hanging it; a DSN's connect_timeout wins. StatementTimeout is
	// the server's statement_timeout unless the DSN sets one, and the
	// client's deadline for each statement (plus a second), which a
	// frozen server cannot enforce for itself (deadline.go). Zero keeps
	// the defaults.
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

// Name is the store as messages name it, once opened: its URL without the
// password.
func (db *DB) Name() string { return db.name }

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
	if strings.Contains(db.DSN, "connect_timeout") && cfg.ConnConfig.ConnectTimeout > 0 {
		connect = cfg.ConnConfig.ConnectTimeout
	}
	cfg.ConnConfig.ConnectTimeout = connect
	cfg.ConnConfig.DialFunc = dialer(connect)
	if ms, ok := cfg.ConnConfig.RuntimeParams["statement_timeout"]; !ok {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(statement.Milliseconds(), 10)
	} else if d, ok := parseStatementTimeout(ms); ok {
		statement = d
	}
	db.connectTimeout, db.statementTimeout = connect, statement
	db.lockers = make(chan struct{}, max(1, int(cfg.MaxConns)-2))
	if db.pool, err = pgxpool.NewWithConfig(context.Background(), cfg); err != nil {
		return err
	}
	// Connect once, within the connect timeout as a whole (pgx gives
	// each of a name's addresses a timeout of its own), so a server that
	// does not answer fails Open in that time and is not tried again by
	// each step of the migration.
	ctx, cancel := db.bound(context.Background(), connect)
	conn, err := db.pool.Acquire(ctx)
	cancel()
	if err != nil {
		db.pool.Close()
		return err
	}
	conn.Release()
	if err := db.migrate(context.Background()); err != nil {
		db.pool.Close()
		return err
	}
	return nil
}

// parseStatementTimeout reads a statement_timeout setting as PostgreSQL
// does: milliseconds, or a number with a unit (ms, s, min, h). Zero (no
// timeout) and anything else are not read.
func parseStatementTimeout(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	num := strings.TrimRight(v, "abcdefghijklmnopqrstuvwxyz ")
	unit := map[string]time.Duration{"": time.Millisecond, "ms": time.Millisecond, "s": time.Second, "min": time.Minute, "h": time.Hour}[strings.TrimSpace(v[len(num):])]
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || unit == 0 || n <= 0 {
		return 0, false
	}
	return time.Duration(n * float64(unit)), true
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
	if ok, err := db.current(ctx, names); ok || err != nil {
		return err
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
// behind another process's migration or writes. An error the server
// sends (no migrations table yet, say) means "not known to be current",
// and migrate takes the lock to find out; any other (the server did not
// answer) is returned, so that it is not met again by each migration. A
// recorded migration not in names (a newer cairn's) is kept in db.newer,
// for the message of a query the newer schema fails.
func (db *DB) current(ctx context.Context, names []string) (bool, error) {
	tx, err := db.read(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, `SELECT name FROM migrations`)
	if err != nil {
		return false, notCurrent(err)
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return false, notCurrent(err)
		}
		done[name] = true
	}
	if err := rows.Err(); err != nil {
		return false, notCurrent(err)
	}
	for _, name := range names {
		if !done[name] {
			return false, nil
		}
		delete(done, name)
	}
	for name := range done {
		db.newer = max(db.newer, path.Base(name))
	}
	return true, nil
}

// notCurrent is nil for an error the server sent, else err.
func notCurrent(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return nil
	}
	return err
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

// Close closes every connection. It waits for the server to see them
// closed for at most [closeWait], not at all while the store is taken to
// be down: a connection that met a frozen server
// is closed in the background, where pgx waits up to 15 s for the server
// to acknowledge (it never does), which would otherwise hold up the end
// of the command or hook that met it.
func (db *DB) Close() error {
	if db.pool == nil {
		return nil
	}
	done := make(chan struct{})
	go func() {
		db.pool.Close()
		close(done)
	}()
	wait := closeWait
	if db.up() != nil {
		wait = 0 // the server did not answer a moment ago
	}
	select {
	case <-done:
	case <-time.After(wait):
	}
	return nil
}

// closeWait is how long [DB.Close] waits for the server.
const closeWait = time.Second

// Tx is a transaction stamped with the time it began, on a connection
// of the pool it holds until it commits or rolls back.
type Tx struct {
	pgx.Tx
	conn *pgxpool.Conn
	db   *DB
	now  time.Time
}

// BeginTx starts a transaction: waiting for a connection (perhaps a new
// one) is bounded by the connect and statement timeouts together, BEGIN
// by the statement timeout (deadline.go).
func (db *DB) BeginTx(ctx context.Context, opts pgx.TxOptions) (_ *Tx, err error) {
	defer db.explain(&err)
	if err := db.up(); err != nil && !db.probeDue() {
		return nil, err
	}
	actx, cancel := db.bound(ctx, db.connectTimeout+db.statementTimeout)
	conn, err := db.pool.Acquire(actx)
	cancel()
	if err != nil {
		if timedOut(err) && ctx.Err() == nil {
			db.markDown()
		}
		return nil, err
	}
	bctx, cancel := db.statement(ctx)
	defer cancel()
	tx, err := conn.BeginTx(bctx, opts)
	if err != nil {
		conn.Release()
		return nil, err
	}
	return &Tx{Tx: tx, conn: conn, db: db, now: db.Now().UTC().Truncate(time.Millisecond)}, nil
}

// release returns the transaction's connection to the pool (which drops
// it unless it is idle and healthy).
func (tx *Tx) release() {
	if tx.conn != nil {
		tx.conn.Release()
		tx.conn = nil
	}
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
