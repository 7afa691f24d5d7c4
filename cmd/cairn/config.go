package main

import (
	"flag"
	"os"
	"path/filepath"

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
	fs.StringVar(&s.store, "store", "", "store file (default: $CAIRN_STORE, else .cairn/cairn.db in the workspace)")
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

// store is an open store with the per-noun services commands use.
type store struct {
	db          *sqlite.DB
	sessions    *sqlite.SessionStore
	rounds      *sqlite.RoundStore
	lines       *sqlite.LineStore
	inscription *sqlite.InscriptionStore
	searcher    *sqlite.Searcher
	tags        *sqlite.TagStore
}

func (m *Main) openStore(flagValue string) (*store, error) {
	path, err := m.storePath(flagValue)
	if err != nil {
		return nil, err
	}
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		return nil, err
	}
	return &store{
		db: db, sessions: sqlite.NewSessionStore(db), rounds: sqlite.NewRoundStore(db), lines: sqlite.NewLineStore(db),
		inscription: sqlite.NewInscriptionStore(db), searcher: sqlite.NewSearcher(db), tags: sqlite.NewTagStore(db),
	}, nil
}

func (s *store) Close() error { return s.db.Close() }
