package reliability_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/pgtest"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/cairn-dev/cairn/sqlite"
)

var full = flag.Bool("full", os.Getenv("CAIRN_RELIABILITY") == "full", "run the full configuration (100 kills, 8 processes for 60 s)")

// config is the size of one run of the suite.
type config struct {
	kills    int           // crash: kills per backend
	workers  int           // concurrency: processes
	duration time.Duration // concurrency: how long they run
}

func configuration() config {
	if *full {
		return config{kills: 100, workers: 8, duration: 60 * time.Second}
	}
	return config{kills: 5, workers: 3, duration: 3 * time.Second}
}

func TestMain(m *testing.M) {
	switch os.Getenv("CAIRN_RELIABILITY_CHILD") {
	case "crash":
		os.Exit(crashChild())
	case "worker":
		os.Exit(worker())
	case "sharer":
		os.Exit(sharer())
	}
	flag.Parse()
	start := time.Now()
	code := m.Run()
	fmt.Printf("reliability (%s): %s; %.1fs\n", map[bool]string{true: "full", false: "short"}[*full], totals.String(), time.Since(start).Seconds())
	os.Exit(code)
}

// figures are what a test did; every test adds its own to totals.
type figures struct {
	mu       sync.Mutex
	ops      int
	failures int
	kills    int
	lines    int
}

var totals figures

func (f *figures) add(ops, failures, kills, lines int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops, f.failures, f.kills, f.lines = f.ops+ops, f.failures+failures, f.kills+kills, f.lines+lines
}

func (f *figures) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fmt.Sprintf("%d operations, %d failures, %d kills, %d lines verified", f.ops, f.failures, f.kills, f.lines)
}

// summary logs one test's figures in one line and adds them to the totals.
func summary(tb testing.TB, start time.Time, ops, failures, kills, lines int) {
	tb.Helper()
	totals.add(ops, failures, kills, lines)
	tb.Logf("%s: %d operations, %d failures, %d kills, %d lines verified; %.1fs",
		tb.Name(), ops, failures, kills, lines, time.Since(start).Seconds())
}

// A backend makes fresh, empty stores; a store's location is a file path
// or a postgres:// URL, which child processes open too.
type backend struct {
	name  string
	fresh func(tb testing.TB) string
}

func backends() []backend {
	return []backend{
		{"SQLite", func(tb testing.TB) string { return filepath.Join(tb.TempDir(), "cairn.db") }},
		{"PostgreSQL", freshSchema},
	}
}

// forEachBackend runs test on each backend in a subtest.
func forEachBackend(t *testing.T, test func(t *testing.T, fresh func(tb testing.TB) string)) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { test(t, b.fresh) })
	}
}

// freshSchema returns the URL of a new schema of $CAIRN_TEST_POSTGRES's
// database, dropped when the test ends.
func freshSchema(tb testing.TB) string {
	return pgtest.Schema(tb, "the PostgreSQL reliability tests")
}

// store is every store interface of one open store.
type store struct {
	io.Closer
	cairn.SessionStore
	cairn.RoundStore
	cairn.LineStore
	cairn.InscriptionStore
	cairn.Searcher
	cairn.FrameStore
}

func openStore(location string) (*store, error) {
	if strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://") {
		db := postgres.NewDB(location)
		if err := db.Open(); err != nil {
			return nil, err
		}
		return &store{db, postgres.NewSessionStore(db), postgres.NewRoundStore(db), postgres.NewLineStore(db),
			postgres.NewInscriptionStore(db), postgres.NewSearcher(db), postgres.NewFrameStore(db)}, nil
	}
	db := sqlite.NewDB(location)
	if err := db.Open(); err != nil {
		return nil, err
	}
	return &store{db, sqlite.NewSessionStore(db), sqlite.NewRoundStore(db), sqlite.NewLineStore(db),
		sqlite.NewInscriptionStore(db), sqlite.NewSearcher(db), sqlite.NewFrameStore(db)}, nil
}

func mustOpenStore(tb testing.TB, location string) *store {
	tb.Helper()
	st, err := openStore(location)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

func importer(st *store, batch int) *inscribe.Importer {
	return &inscribe.Importer{Store: st, Format: claudecode.Format{}, BatchBytes: batch}
}

// sampleLines returns the lines of the sample transcripts, the material
// growing transcripts are made of.
func sampleLines(tb testing.TB) [][]byte {
	tb.Helper()
	data, err := os.ReadFile("../../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	return claudecode.SplitLines(data)
}

// complete returns the part of data an import stores: every line that has
// its terminator (an unterminated last line may still be cut short).
func complete(data []byte) []byte {
	return data[:bytes.LastIndexByte(data, '\n')+1]
}

// checkStored verifies that the store holds exactly want as the current
// generation of session id: same bytes, as many lines, and a source
// position at its end. It returns the number of lines checked.
func checkStored(ctx context.Context, st *store, id string, want []byte) (int, error) {
	lines, err := st.FindLines(ctx, id, 0, 0)
	if len(want) == 0 && cairn.ErrorCode(err) == cairn.ENOTFOUND {
		return 0, nil // no complete line: no session, as it should be
	} else if err != nil {
		return 0, err
	}
	var got bytes.Buffer
	for i, l := range lines {
		if l.No != i+1 {
			return 0, fmt.Errorf("line %d is numbered %d: a line is duplicated or missing", i+1, l.No)
		}
		got.Write(l.Raw)
	}
	if !bytes.Equal(got.Bytes(), want) {
		return 0, fmt.Errorf("the store holds %d bytes in %d lines that are not the file's %d bytes in %d lines",
			got.Len(), len(lines), len(want), len(claudecode.SplitLines(want)))
	}
	if n := len(claudecode.SplitLines(want)); n != len(lines) {
		return 0, fmt.Errorf("the store holds %d lines, the file %d", len(lines), n)
	}
	src, err := st.FindSource(ctx, id)
	if err != nil {
		return 0, err
	}
	if src.Offset != int64(len(want)) || src.Lines != len(lines) {
		return 0, fmt.Errorf("source position %d bytes, %d lines; want %d, %d", src.Offset, src.Lines, len(want), len(lines))
	}
	return len(lines), nil
}
