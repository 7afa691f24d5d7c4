// Package sqlite implements cairn's store interfaces on an embedded SQLite
// database: pure Go (no cgo), one file, WAL, FTS5 for search.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn"

	_ "modernc.org/sqlite" // the pure-Go driver: cairn installs with `go install`, no C toolchain
)

//go:embed migration/*.sql
var migrationFS embed.FS

// driverName is the database/sql driver a DB's pools open: modernc's,
// or in a test one that wraps it to count the statements SQLite compiles.
var driverName = "sqlite"

// DB is a cairn store in one SQLite file. Writes go through one pool whose
// transactions begin IMMEDIATE, so two writers queue on the busy timeout
// instead of failing to upgrade a read lock; reads use a second pool and
// never wait for a writer (WAL).
type DB struct {
	db      *sql.DB // writes
	rdb     *sql.DB // reads
	ctx     context.Context
	cancel  func()
	locks   sessionLocks
	group   grouper      // inscriptions waiting for the write lock ([InscriptionStore.Inscribe])
	chunks  chunkCache   // raw bytes of the chunks read last
	stmts   stmtCache    // the writer's kept statements (stmtcache.go)
	terms   seenTerms    // the pieces whose terms this DB wrote to index_terms (terms.go)
	newer   string       // the newest migration recorded in the store that this cairn lacks
	swept   atomic.Int64 // when the last sweep ended, Unix nanoseconds ([sweepAgain])
	walOnce sync.Once    // the WAL checked before the first write ([DB.checkpointLongWAL])

	// readOnly is set by Open when this user may not write the store:
	// reads are served, writes refused ([DB.ReadOnly]).
	readOnly bool

	// Path is the database file.
	Path string

	// Now returns the current time; tests replace it for stable output.
	Now func() time.Time

	// BusyTimeout is how long a write waits for another process's writer
	// before it fails; zero means [DefaultBusyTimeout].
	BusyTimeout time.Duration

	// ReadCache, when set before Open, is each read connection's page
	// cache in KiB (SQLite's default: 2,000). A process that reads a few
	// hundred pages once and exits, a search, spends less reusing a small
	// cache than faulting in fresh memory for a large one; a reader that
	// lives on, or reads a whole session, keeps the default.
	ReadCache int

	// RefillFor, when set before Open, bounds the time Open spends
	// rebuilding the search index after a migration that changes its
	// layout (refill.go: about 8.5 s a GB of history, once). Past it,
	// Open returns with the rest of the blocks listed, as a killed open
	// leaves them, and the next open carries on; until then a search
	// misses the blocks not yet indexed again. A process a client waits
	// on (a hook) sets it; zero rebuilds to the end.
	RefillFor time.Duration

	// OnRefill, when set before Open, is called as Open begins or
	// resumes rebuilding the search index, with about how many blocks it
	// has left, so that a command can say what it waits for.
	OnRefill func(left int64)

	// OneConnection, when set before Open, serves reads from the
	// writer's pool, for a short process that reads and writes a few
	// times and exits (a hook): SQLite parses the schema once for each
	// connection (53 objects, about a tenth of a Stop hook's CPU with two),
	// and each connection compiles its own statements. Its read
	// transactions begin DEFERRED, as the read pool's do, so they never
	// wait for another process's writer; a read while this process's
	// write transaction holds the connection opens another (the pool is
	// not capped at one then), as the read pool would. ReadCache is not
	// applied.
	OneConnection bool
}

// DefaultBusyTimeout is how long a write waits for another writer: longer
// than any one import batch holds the lock.
const DefaultBusyTimeout = 30 * time.Second

// NewDB returns a DB for the file at path; call [DB.Open] before use.
func NewDB(path string) *DB {
	db := &DB{Path: path, Now: time.Now}
	db.ctx, db.cancel = context.WithCancel(context.Background())
	return db
}

// Open creates the database file if needed and migrates it to the newest
// schema.
func (db *DB) Open() (err error) {
	defer db.explain(&err)
	if db.Path == "" {
		return cairn.Errorf(cairn.EINVALID, "Store path required.")
	}
	if err := os.MkdirAll(filepath.Dir(db.Path), 0o755); err != nil {
		return err
	}
	if err := refuseEmpty(db.Path); err != nil {
		return err
	}
	// WAL lets readers run beside the one writer; synchronous=NORMAL is
	// durable across process crashes in WAL mode (an OS crash may lose the
	// last transactions, never corrupt); foreign keys are off by default.
	// Those are the writer's: journal_mode is kept in the file, and a
	// read-only connection has no use for the others, each a statement
	// its every open runs. (Stores have 4 KiB pages: the driver applies its
	// pragmas in name order, so a page_size after journal_mode(WAL) never
	// took effect, and measured figures are those of 4 KiB pages.)
	// temp_store=MEMORY keeps the writer's statement journals (each
	// multi-row INSERT inside an import's transaction has one, the size of
	// the few pages it changes) out of temporary files: writing them took
	// a twentieth of the import of a message of a million blocks.
	dsn := "file:" + (&url.URL{Path: db.Path}).EscapedPath() + "?" + fmt.Sprintf("_pragma=busy_timeout(%d)", db.busyTimeout().Milliseconds())
	// journal_size_limit: the WAL file is cut back to walLimit each time
	// it begins again (wal.go).
	if db.db, err = sql.Open(driverName, dsn+"&_pragma=journal_mode(WAL)&_pragma=journal_size_limit("+strconv.Itoa(walLimit)+")&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=temp_store(MEMORY)&_txlock=immediate"); err != nil {
		return err
	}
	// Neither pool maps the file: both copy pages (pread). Most reads come
	// from a short process (search, a hook) that touches a few hundred
	// scattered pages once, and mapping them cost more in page faults and
	// in unmapping at close than it saved in copies; the writer mapping
	// the store made an import of 1 GB slower (16.5 s against 14.7 s) and
	// counted every page it touched in its resident memory (157 MB against
	// 69 MB). That is SQLite's default (modernc builds it with
	// SQLITE_DEFAULT_MMAP_SIZE 0), so no connection runs a pragma for it:
	// each is a statement every process pays at open
	// (TestOpen_ReadsUnmapped checks both pools).
	rdsn := dsn
	if db.ReadCache > 0 {
		rdsn += "&_pragma=cache_size(-" + strconv.Itoa(db.ReadCache) + ")"
	}
	if db.OneConnection {
		db.rdb = db.db
	} else {
		if db.rdb, err = sql.Open(driverName, rdsn); err != nil {
			return err
		}
		db.db.SetMaxOpenConns(1)
	}
	err = db.migrate()
	if err != nil && mayNotWrite(err) {
		if _, serr := os.Stat(db.Path); serr == nil {
			return db.openReadOnly(dsn, rdsn[len(dsn):], err)
		}
	}
	// A store file this user may not write, beside a -shm file that is
	// there, opens as if it could be written (SQLite falls back to reading
	// it): its writes are refused before they begin, as above.
	db.readOnly = err == nil && !writable(db.Path)
	return err
}

// ReadOnly reports whether the store was opened read-only because this
// user may not write it (the file, its folder, or its -wal and -shm files
// beside it): reads are served, and every write fails with EINVALID,
// saying so.
func (db *DB) ReadOnly() bool { return db.readOnly }

// openReadOnly reopens a store this user may not write for reads only,
// after opening it for writes failed with cause. SQLite reads a WAL store
// read-only (mode=ro) as long as its -shm file exists or can be made;
// where neither is true (a read-only folder holding the store alone, as a
// store closed cleanly leaves it), nothing can be in a -wal file, all is
// in the store file, which is then read as immutable: without locks, as
// nobody who cannot write the folder can write the store either. A -wal
// file that is there but cannot be read through its -shm is never
// skipped: its transactions would be missing, so the store is refused.
func (db *DB) openReadOnly(dsn, pragmas string, cause error) error {
	db.stmts.reset()
	db.db.Close()
	if db.rdb != db.db {
		db.rdb.Close()
	}
	db.db, db.rdb = nil, nil
	ro := dsn + "&mode=ro" + pragmas
	if !db.readable(ro) {
		if info, err := os.Stat(db.Path + "-wal"); err == nil && info.Size() > 0 || err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &cairn.Error{Code: cairn.EINVALID, Err: cause, Message: "The store " + db.Path + " is read-only for this user, and its last transactions (in " + db.Path + "-wal) can only be read by a user who may write its folder: run the command as that user, or copy the store with its -wal file to a folder you may write."}
		}
		ro = dsn + "&immutable=1" + pragmas
		if !db.readable(ro) {
			return cause
		}
	}
	db.readOnly = true
	names, err := fs.Glob(migrationFS, "migration/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	if !db.current(names) {
		return &cairn.Error{Code: cairn.EINVALID, Err: cause, Message: "The store " + db.Path + " is read-only for this user and was written by an older cairn: open it once as a user who may write it (its file and its folder), which upgrades it, then read it as this user."}
	}
	return nil
}

// readable opens the read pool at dsn and reports whether it reads the
// store; when it does not, the pool is closed.
func (db *DB) readable(dsn string) bool {
	rdb, err := sql.Open(driverName, dsn)
	if err != nil {
		return false
	}
	var n int
	if rdb.QueryRow(`SELECT COUNT(*) FROM sqlite_master`).Scan(&n) != nil {
		rdb.Close()
		return false
	}
	db.rdb = rdb
	return true
}

// refuseEmpty returns an error if path is an empty file: SQLite would take
// it for a new database and make it an empty store, hiding that the store
// that was there (truncated, or a copy that failed) is gone. Another cairn
// that has just created the store writes its first page at once: an empty
// file is looked at again for up to a second before it is refused.
func refuseEmpty(path string) error {
	for deadline := time.Now().Add(time.Second); ; time.Sleep(10 * time.Millisecond) {
		info, err := os.Stat(path)
		if err != nil || !info.Mode().IsRegular() || info.Size() > 0 {
			return nil // missing: created; anything else: SQLite says what it is
		}
		if time.Now().After(deadline) {
			return cairn.Errorf(cairn.EINVALID, "The store %s is an empty file, not a cairn store: if it held your sessions, restore it from a copy; to start a new store there, delete the empty file.", path)
		}
	}
}

func (db *DB) busyTimeout() time.Duration {
	if db.BusyTimeout <= 0 {
		return DefaultBusyTimeout
	}
	return db.BusyTimeout
}

// migrate runs each embedded migration not yet recorded, one transaction
// each. Whether any is due is read first without a lock, so opening an
// up-to-date store never waits for a writer: search, export and the
// SessionStart hook answer while an import holds the write lock.
func (db *DB) migrate() error {
	names, err := fs.Glob(migrationFS, "migration/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	if db.current(names) {
		return nil
	}
	if _, err := db.db.Exec(`CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY)`); err != nil {
		return err
	}
	refill := false
	for _, name := range names {
		r, err := db.migrateFile(name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		refill = refill || r
	}
	if refill {
		// After every migration's SQL, so that it reads the blocks in
		// the newest layout.
		if err := db.refill(); err != nil {
			return fmt.Errorf("refilling the search index: %w", err)
		}
	}
	return nil
}

// current reports whether every migration in names is recorded, read
// through the read pool (WAL: never waits). Any error says "not known to
// be current", and migrate takes the write lock to find out. A recorded
// migration not in names (a newer cairn's) is kept in db.newer, for the
// message of a query the newer schema fails.
func (db *DB) current(names []string) bool {
	rows, err := db.rdb.Query(`SELECT name FROM migrations`)
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

// migrateFile runs migration name unless it is recorded, and reports
// whether it is one of refillMigrations, whose refill is left to do.
func (db *DB) migrateFile(name string) (refill bool, err error) {
	tx, err := db.db.Begin()
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM migrations WHERE name = ?`, name).Scan(&n); err != nil || n > 0 {
		return false, err
	}
	if layout, ok := refillMigrations[name]; ok {
		// Its SQL lists the blocks to index again in refill; the
		// migration is recorded by the refill's last transaction.
		var started int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'refill'
			AND EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'blocks_fts' AND instr(sql, ?) > 0)`, layout).Scan(&started); err != nil {
			return false, err
		}
		if started == 0 {
			if err := execFile(tx, name); err != nil {
				return false, err
			}
		}
		return true, tx.Commit()
	}
	if err := execFile(tx, name); err != nil {
		return false, err
	}
	if _, err := tx.Exec(`INSERT INTO migrations (name) VALUES (?)`, name); err != nil {
		return false, err
	}
	return false, tx.Commit()
}

// execFile runs the statements of migration name.
func execFile(tx *sql.Tx, name string) error {
	buf, err := fs.ReadFile(migrationFS, name)
	if err != nil {
		return err
	}
	_, err = tx.Exec(string(buf))
	return err
}

// Close closes the database.
func (db *DB) Close() (err error) {
	defer db.explain(&err)
	db.cancel()
	db.locks.close()
	db.stmts.reset()
	for i, d := range []*sql.DB{db.rdb, db.db} {
		if d != nil && (i == 0 || d != db.rdb) {
			if e := d.Close(); e != nil && err == nil {
				err = e
			}
		}
	}
	return err
}

// Tx is a transaction stamped with the time it began.
type Tx struct {
	*sql.Tx
	db          *DB
	now         time.Time
	stmts       map[string]*sql.Stmt
	write       bool             // a write transaction: its statements are kept (stmtcache.go)
	index       *pendingIndex    // the search index texts written at Commit
	unindexed   map[int64]string // search entries retired, deleted at Commit unless written again the same (unindex.go)
	terms       hashSet          // the pieces whose terms it wrote, for the DB's seenTerms once committed
	termsPruned string           // the token of index_terms' last prune as it read it
	nums        map[string]int64 // session numbers looked up or given in it ([sessionNum]): a number never changes
	viewing     *lineSource      // an inscription's lines, of its session's current generation, while its old blocks are retired ([chunkReader])
}

// BeginTx starts a write transaction, or a read one when opts.ReadOnly.
func (db *DB) BeginTx(ctx context.Context, opts *sql.TxOptions) (_ *Tx, err error) {
	defer db.explain(&err)
	pool := db.db
	write := opts == nil || !opts.ReadOnly
	if !write {
		pool = db.rdb
		if pool != db.db {
			opts = nil
		}
	} else if db.readOnly {
		return nil, cairn.Errorf(cairn.EINVALID, "%s", db.readOnlyMessage())
	}
	if write {
		db.checkpointLongWAL(ctx)
		db.stmts.prepareWanted(ctx, pool)
	}
	tx, err := pool.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &Tx{Tx: tx, db: db, now: db.Now().UTC().Truncate(time.Millisecond), write: write}, nil
}

func (db *DB) read(ctx context.Context) (*Tx, error) {
	return db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
}

// A querier is a transaction a column is read in: a store's [Tx] or the
// scratch database's.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readColumn returns the values of the one column query selects, in q:
// the ids of the sessions a sweep, a drop or a rewrite then goes through
// one at a time, each in transactions of its own; a range's block ids;
// the terms of a scratch text.
func readColumn[T any](ctx context.Context, q querier, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// timeFormat stores times as sortable text.
const timeFormat = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeFormat)
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, _ := time.Parse(timeFormat, s)
	return t
}
