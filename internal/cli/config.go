package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/workspace"
)

// StoreDir is the workspace folder that marks a cairn workspace and holds
// its embedded store.
const StoreDir = workspace.Dir

// storeFlags are the flags every command that opens the store shares.
type storeFlags struct {
	store string
	json  bool
}

func (s *storeFlags) register(fs *flag.FlagSet, withJSON bool) {
	fs.StringVar(&s.store, "store", "", "store file, or a postgres:// URL of a shared store (default: $CAIRN_STORE, else .cairn/cairn.db in the workspace)")
	if withJSON {
		fs.BoolVar(&s.json, "json", false, "print JSON")
	}
}

// storePath resolves the store: the flag, then $CAIRN_STORE, then
// .cairn/cairn.db in the nearest folder holding .cairn/, else in the
// current folder.
func (m *Main) storePath(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if env := m.Getenv("CAIRN_STORE"); env != "" {
		return env, nil
	}
	wd, err := m.Getwd()
	if err != nil {
		return "", err
	}
	root, ok := workspace.Find(wd)
	if !ok {
		root = wd
	}
	return filepath.Join(root, StoreDir, "cairn.db"), nil
}

// isPostgres reports whether a store location is a PostgreSQL URL rather
// than a file.
func isPostgres(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// store is an open store with the per-noun services commands use.
type store struct {
	io.Closer
	name        string // what messages call it: "the store PATH", "the PostgreSQL store URL"
	sessions    cairn.SessionStore
	rounds      cairn.RoundStore
	lines       cairn.LineStore
	inscription cairn.InscriptionStore
	searcher    cairn.Searcher
	frames      cairn.FrameStore
	missions    cairn.MissionStore
	tags        cairn.TagStore
	engagements cairn.EngagementStore
	keep        cairn.KeepStore
	stats       cairn.StatsStore
}

// openStore opens the store the flag, $CAIRN_STORE or the workspace names:
// a postgres:// or postgresql:// URL opens a shared PostgreSQL store,
// anything else is the path of an SQLite file.
//
// A hook opens its store once: the steps of one event (inscribe, the
// pressure note, suggestions) share it, and [Main.runHook] closes it.
func (m *Main) openStore(flagValue string) (*store, error) {
	location, err := m.storePath(flagValue)
	if err != nil {
		return nil, err
	}
	if !m.inHook {
		return openStoreWith(location, sqliteOpen{told: m.Stderr})
	}
	if m.hookStore != nil && m.hookStoreAt == location {
		return m.hookStore.borrowed(), nil
	}
	open := func(location string) (*store, error) {
		return openStoreWith(location, sqliteOpen{refillFor: hookRefillFor, oneConnection: true})
	}
	if isPostgres(location) {
		open = func(location string) (*store, error) {
			return openPostgres(location, hookConnectTimeout, hookStatementTimeout)
		}
	}
	st, err := open(location)
	if err != nil || m.hookStore != nil {
		return st, err // another store than the hook's own: the caller's to close
	}
	m.hookStore, m.hookStoreAt = st, location
	return st.borrowed(), nil
}

// borrowed returns st with a Close that leaves it open, for a caller that
// does not own it.
func (st *store) borrowed() *store {
	b := *st
	b.Closer = keepOpen{}
	return &b
}

type keepOpen struct{}

func (keepOpen) Close() error { return nil }

// readStore opens the store for a command that only reads it. A store
// file that does not exist is not created (nor its .cairn/ folder): the
// command says where it looked and what creates one.
func (m *Main) readStore(flagValue string) (*store, error) { return m.readStoreCache(flagValue, 0) }

// readStoreCache opens the store as readStore does, an SQLite store with
// a read page cache of cache KiB ([sqlite.DB.ReadCache]; 0: SQLite's).
func (m *Main) readStoreCache(flagValue string, cache int) (*store, error) {
	location, err := m.storePath(flagValue)
	if err != nil {
		return nil, err
	}
	if !isPostgres(location) {
		if _, err := os.Stat(location); errors.Is(err, fs.ErrNotExist) {
			return nil, cairn.Errorf(cairn.ENOTFOUND, "No store at %s yet: \"cairn import\" inscribes transcripts into it, \"cairn push\" or \"cairn mission set\" start one (--store or CAIRN_STORE name another).", location)
		}
	}
	return openStoreWith(location, sqliteOpen{readCache: cache, told: m.Stderr})
}

// A hook's PostgreSQL timeouts: Claude Code waits for hooks, so a server
// that does not answer fails the hook in seconds (the DSN's
// connect_timeout and statement_timeout win).
const (
	hookConnectTimeout   = 3 * time.Second
	hookStatementTimeout = 10 * time.Second
)

// hookRefillFor bounds what a hook spends rebuilding an SQLite store's
// search index after an upgrade that changes its layout (about 8.5 s a GB
// of history, once): Claude Code waits for the hook, and kills it after
// its timeout. Each hook carries the rebuild on for this long, and any
// other command finishes it.
const hookRefillFor = time.Second

// sqliteOpen is how a command opens an SQLite store.
type sqliteOpen struct {
	readCache int           // each read connection's page cache in KiB ([sqlite.DB.ReadCache]; 0: SQLite's)
	refillFor time.Duration // [sqlite.DB.RefillFor]
	told      io.Writer     // where a rebuild of the search index at open is announced (nil: nowhere)

	oneConnection bool // reads and writes on one connection ([sqlite.DB.OneConnection]): a hook's short process
}

// openStoreWith opens the store at location, an SQLite store as o says.
func openStoreWith(location string, o sqliteOpen) (*store, error) {
	if isPostgres(location) {
		return openPostgres(location, 0, 0)
	}
	db := sqlite.NewDB(location)
	db.ReadCache, db.RefillFor, db.OneConnection = o.readCache, o.refillFor, o.oneConnection
	if o.told != nil {
		db.OnRefill = func(left int64) {
			fmt.Fprintf(o.told, "cairn: rebuilding the search index of %s in this version's layout (about %s blocks, some 8 seconds a GB of history; once, and carried on if stopped)\n", location, thousands(left))
		}
	}
	if err := db.Open(); err != nil {
		return nil, err
	}
	return &store{
		Closer: db, name: "the store " + db.Path, sessions: sqlite.NewSessionStore(db), rounds: sqlite.NewRoundStore(db), lines: sqlite.NewLineStore(db),
		inscription: sqlite.NewInscriptionStore(db), searcher: sqlite.NewSearcher(db), tags: sqlite.NewTagStore(db),
		frames: sqlite.NewFrameStore(db), missions: sqlite.NewMissionStore(db),
		engagements: sqlite.NewEngagementStore(db),
		keep:        sqlite.NewKeepStore(db), stats: sqlite.NewStatsStore(db),
	}, nil
}

// now is cairn's clock: $CAIRN_NOW (RFC 3339) when set, so that scripted
// tests print stable times, else the system clock. It is read here only.
func (m *Main) now() time.Time {
	if env := m.Getenv("CAIRN_NOW"); env != "" {
		if t, err := time.Parse(time.RFC3339, env); err == nil {
			return t
		}
	}
	return time.Now()
}

// wsFlags are the flags every workspace command shares.
type wsFlags struct {
	session string
}

func (f *wsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.session, "session", "", "the acting session (default: $CAIRN_SESSION, else $CLAUDE_CODE_SESSION_ID, else \"default\")")
}

// sessionID resolves the acting session: the flag (or a hook's
// session_id), $CAIRN_SESSION, $CLAUDE_CODE_SESSION_ID (what Claude Code
// sets for every command its agent runs, and for the MCP server it
// starts), else "default".
func (m *Main) sessionID(flagValue string) string {
	if id := m.knownSession(flagValue); id != "" {
		return id
	}
	return cairn.DefaultSession
}

// knownSession resolves the acting session as sessionID does, but returns
// "" when nothing names one: what a frame records as its
// [cairn.Frame.SessionID], where "default" would claim a session that
// never was.
func (m *Main) knownSession(flagValue string) string {
	for _, id := range []string{flagValue, m.Getenv("CAIRN_SESSION"), m.Getenv("CLAUDE_CODE_SESSION_ID")} {
		if id != "" {
			return id
		}
	}
	return ""
}

// openWorkspace returns the workspace holding the current folder, acting
// as the session the flags name, on cairn's clock. Returns ENOTFOUND
// outside a workspace.
func (m *Main) openWorkspace(f wsFlags) (*workspace.Workspace, error) {
	wd, err := m.Getwd()
	if err != nil {
		return nil, err
	}
	w, err := workspace.Open(wd)
	if err != nil {
		return nil, err
	}
	w.Session = m.sessionID(f.session)
	w.Now = m.now
	return w, nil
}

// path resolves a path given on the command line against the current
// folder.
func (m *Main) path(p string) (string, error) {
	if filepath.IsAbs(p) {
		return p, nil
	}
	wd, err := m.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, p), nil
}

// stringsFlag is a flag that may be given several times.
type stringsFlag []string

func (s *stringsFlag) String() string     { return fmt.Sprint([]string(*s)) }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// parseInterspersed parses flags that may come after arguments, as in
// cairn decide "Title" --context "…": the standard flag package stops at
// the first argument.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		args = fs.Args()
		if args[0] == "--" {
			positional = append(positional, args[1:]...)
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	return fs.Parse(append([]string{"--"}, positional...))
}

// positional parses flags wherever they appear among args, as
// parseInterspersed does, and returns the positional arguments.
func positional(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := parseInterspersed(fs, args); err != nil {
		return nil, err
	}
	return fs.Args(), nil
}

// isHelpFlag reports whether arg asks for help, as the flag package reads
// -h, -help, --h and --help.
func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--h", "--help":
		return true
	}
	return false
}

// queryArgs lets a search query hold words that start with '-', as in
// cairn search -foo: an argument with one dash that names none of fs's
// flags is a word of the query. Known flags (with their values), -h and
// anything with two dashes stay flags, so a mistyped --flag is still an
// error. The words are returned after "--" for [parseInterspersed].
func queryArgs(fs *flag.FlagSet, args []string) []string {
	var flags, words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			words = append(words, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil && !isHelpFlag(a) && !strings.HasPrefix(a, "--") {
			words = append(words, a)
			continue
		}
		flags = append(flags, a)
		if f == nil || hasValue || i+1 == len(args) {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
			i++
			flags = append(flags, args[i])
		}
	}
	return append(append(flags, "--"), words...)
}
