package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"

	"cairn"
	"cairn/postgres"
	"cairn/sqlite"
)

// StoreDir is the workspace folder that marks a cairn workspace and holds
// its embedded store.
const StoreDir = ".cairn"

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
	return filepath.Join(workspace(wd), StoreDir, "cairn.db"), nil
}

// workspace returns the nearest folder from dir upwards that holds
// .cairn/, or dir itself.
func workspace(dir string) string {
	for d := dir; ; {
		if info, err := os.Stat(filepath.Join(d, StoreDir)); err == nil && info.IsDir() {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// isPostgres reports whether a store location is a PostgreSQL URL rather
// than a file.
func isPostgres(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// store is an open store with the per-noun services commands use.
type store struct {
	io.Closer
	sessions    cairn.SessionStore
	rounds      cairn.RoundStore
	lines       cairn.LineStore
	inscription cairn.InscriptionStore
	searcher    cairn.Searcher
}

// openStore opens the store the flag, $CAIRN_STORE or the workspace names:
// a postgres:// or postgresql:// URL opens a shared PostgreSQL store,
// anything else is the path of an SQLite file.
func (m *Main) openStore(flagValue string) (*store, error) {
	location, err := m.storePath(flagValue)
	if err != nil {
		return nil, err
	}
	return openStoreAt(location)
}

func openStoreAt(location string) (*store, error) {
	if isPostgres(location) {
		db := postgres.NewDB(location)
		if err := db.Open(); err != nil {
			return nil, err
		}
		return &store{
			Closer: db, sessions: postgres.NewSessionStore(db), rounds: postgres.NewRoundStore(db), lines: postgres.NewLineStore(db),
			inscription: postgres.NewInscriptionStore(db), searcher: postgres.NewSearcher(db),
		}, nil
	}
	db := sqlite.NewDB(location)
	if err := db.Open(); err != nil {
		return nil, err
	}
	return &store{
		Closer: db, sessions: sqlite.NewSessionStore(db), rounds: sqlite.NewRoundStore(db), lines: sqlite.NewLineStore(db),
		inscription: sqlite.NewInscriptionStore(db), searcher: sqlite.NewSearcher(db),
	}, nil
}
