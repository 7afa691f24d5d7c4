package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/claudecode"
	insc "github.com/cairn-dev/cairn/inscribe"
)

// smallTables are the tables whose size does not grow with the
// transcripts a store holds: a statement may read them whole.
var smallTables = []string{"CONSTANT ROW", "sqlite_master", "migrations", "settings", "refill", "relaid", "staged_blocks", "p"}

// TestWritePlans: no statement an import's write transactions run reads a
// whole table or index that grows with the store (sessions, rounds,
// blocks, chunks, ...): each costs what the session it writes holds, not
// what the store holds. (Linking sub-agents to their parents' rounds read
// every session at every inscription: an import of 1 GB into a 10 GB store
// took 43.8 s, 23 s of it there.)
func TestWritePlans(t *testing.T) {
	db := NewDB(filepath.Join(t.TempDir(), "s.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := struct {
		*InscriptionStore
		*LineStore
	}{NewInscriptionStore(db), NewLineStore(db)}
	// The real transcripts, each imported first in part, then whole: new
	// sessions, then rounds replaced and appended to, sessions refreshed
	// by the difference, sub-agents linked to their parents.
	dir := t.TempDir()
	paths := RealTranscripts(t)
	var copies []string
	for i, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(raw, []byte("\n"))
		c := filepath.Join(dir, fmt.Sprintf("%d", i), filepath.Base(p))
		if err := os.MkdirAll(filepath.Dir(c), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(c, bytes.Join(lines[:len(lines)/2], nil), 0o644); err != nil {
			t.Fatal(err)
		}
		copies = append(copies, c)
		defer os.WriteFile(c, raw, 0o644)
	}
	im := &insc.Importer{Store: st, Format: claudecode.Format{}, BatchBytes: 64 << 10}
	if _, err := im.Import(context.Background(), copies); err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		raw, _ := os.ReadFile(p)
		if err := os.WriteFile(copies[i], raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := im.Import(context.Background(), copies); err != nil {
		t.Fatal(err)
	}
	db.stmts.mu.Lock()
	var queries []string
	for q := range db.stmts.stmts {
		queries = append(queries, q)
	}
	for q := range db.stmts.wanted {
		queries = append(queries, q)
	}
	db.stmts.mu.Unlock()
	slices.Sort(queries)
	if len(queries) < 20 {
		t.Fatalf("%d statements kept: the write path was not exercised", len(queries))
	}
	conn, err := db.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range slices.Compact(queries) {
		scans, err := wholeScans(conn, q)
		if err != nil {
			t.Errorf("%v: %s", err, oneLine(q))
			continue
		}
		if len(scans) > 0 {
			t.Errorf("%s reads a whole table: %s", oneLine(q), strings.Join(scans, "; "))
		}
	}
}

// TestLiveImportReadPlans: no statement a hook's live import of one
// round runs, its reads included, reads a whole table or index that grows
// with the store. (The sweep of staged blocks, at each import's start,
// read every session's number, probing staged_blocks with each: 0.85 ms
// in the SQLite CLI on a store of 2,193 sessions, every hook, where
// staged_blocks, empty but after a killed import, is read first in
// 0.01 ms.)
func TestLiveImportReadPlans(t *testing.T) {
	ctx := context.Background()
	counter := countCompiles(t)
	dir := t.TempDir()
	path, appendRound := growingTranscript(t, dir)
	db := NewDB(filepath.Join(dir, "s.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := struct {
		*InscriptionStore
		*LineStore
	}{NewInscriptionStore(db), NewLineStore(db)}
	im := &insc.Importer{Store: st, Format: claudecode.Format{}, Live: true}
	if _, err := im.Import(ctx, []string{path}); err != nil {
		t.Fatal(err)
	}
	appendRound()
	counter.take()
	if _, err := im.Import(ctx, []string{path}); err != nil {
		t.Fatal(err)
	}
	queries := counter.take()
	if len(queries) < 10 {
		t.Fatalf("%d statements compiled: the import was not exercised", len(queries))
	}
	conn, err := db.rdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	slices.Sort(queries)
	for _, q := range slices.Compact(queries) {
		scans, err := wholeScans(conn, q)
		if err != nil {
			t.Errorf("%v: %s", err, oneLine(q))
			continue
		}
		if len(scans) > 0 {
			t.Errorf("%s reads a whole table: %s", oneLine(q), strings.Join(scans, "; "))
		}
	}
}

// wholeScans returns what of q's plan reads a whole table or index that
// grows with the store, its parameters all NULL.
func wholeScans(conn *sql.Conn, q string) ([]string, error) {
	var scans []string
	err := conn.Raw(func(dc any) error {
		ds, err := dc.(driver.ConnPrepareContext).PrepareContext(context.Background(), "EXPLAIN QUERY PLAN "+q)
		if err != nil {
			return err
		}
		defer ds.Close()
		// Every parameter NULL (the driver does not count them).
		args := make([]driver.NamedValue, 4096)
		for i := range args {
			args[i] = driver.NamedValue{Ordinal: i + 1}
		}
		rows, err := ds.(driver.StmtQueryContext).QueryContext(context.Background(), args)
		if err != nil {
			return err
		}
		defer rows.Close()
		row := make([]driver.Value, len(rows.Columns()))
		for rows.Next(row) == nil {
			detail, _ := row[3].(string)
			table, ok := strings.CutPrefix(detail, "SCAN ")
			if ok && lookup(table) {
				continue
			}
			if ok && !slices.ContainsFunc(smallTables, func(s string) bool { return table == s || strings.HasPrefix(table, s+" ") }) {
				scans = append(scans, detail)
			}
		}
		return nil
	})
	return scans, err
}

// lookup reports whether a SCAN of table (as EXPLAIN QUERY PLAN details
// it) reads only what its constraint names: a VALUES list, json_each of
// an argument, or a virtual table given a constraint (FTS5's "0:=" is
// rowid =).
func lookup(table string) bool {
	if strings.HasSuffix(table, "-ROW VALUES CLAUSE") || strings.HasPrefix(table, "json_each ") {
		return true
	}
	_, idx, ok := strings.Cut(table, " VIRTUAL TABLE INDEX ")
	_, constraint, _ := strings.Cut(idx, ":")
	return ok && constraint != ""
}

// RealTranscripts returns the real transcripts of ../shared/testdata,
// or skips tb if there are none.
func RealTranscripts(tb testing.TB) []string {
	tb.Helper()
	var paths []string
	filepath.WalkDir("../../shared/testdata/transcripts", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		tb.Skip("no real transcripts in ../../shared/testdata/transcripts")
	}
	return paths
}

func oneLine(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if len(q) > 300 {
		q = q[:300] + "…"
	}
	return q
}
