package inscribe_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/pgtest"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/cairn-dev/cairn/sqlite"
)

// bothStores is what the partial-copy tests read of a store, SQLite's or
// PostgreSQL's.
type bothStores interface {
	inscribe.Store
	cairn.SessionStore
}

// openBoth opens a fresh store of each backend: SQLite always, PostgreSQL
// when $CAIRN_TEST_POSTGRES names one (pgtest skips it otherwise).
func openBoth(t *testing.T, backend string) bothStores {
	t.Helper()
	type both struct {
		cairn.InscriptionStore
		cairn.LineStore
		cairn.SessionStore
	}
	if backend == "sqlite" {
		db := sqlite.NewDB(filepath.Join(t.TempDir(), "cairn.db"))
		if err := db.Open(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return both{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db), sqlite.NewSessionStore(db)}
	}
	db := postgres.NewDB(pgtest.Schema(t, "the PostgreSQL partial-copy test"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return both{postgres.NewInscriptionStore(db), postgres.NewLineStore(db), postgres.NewSessionStore(db)}
}

// TestImport_PartialCopy: a transcript and a partial copy of it in another
// folder (one session id: a backup, a sync folder) imported fresh, in
// every order, one import or two at once, leave the session holding the
// whole transcript once, at its first generation, read from the
// transcript's path; moving both folders, again and again, stores
// nothing new and the session shows the transcript's new path. A copy
// that diverges is stored beside it under its copy id. Before: the copy,
// read second, was taken as the file rewritten (the session held the
// copy's lines) and every move stored another generation.
func TestImport_PartialCopy(t *testing.T) {
	var whole strings.Builder
	for n := 1; n <= 40; n++ {
		typ := "user"
		if n%2 == 0 {
			typ = "assistant"
		}
		whole.WriteString(chainLine(n, typ, fmt.Sprintf("line %d", n)))
	}
	live := whole.String()
	part := live[:strings.Index(live, chainLine(21, "user", "line 21"))]
	orders := []struct {
		name string
		run  func(t *testing.T, st bothStores, a, b string)
	}{
		{"OneImport", func(t *testing.T, st bothStores, a, b string) { importAll(t, st, a, b) }},
		{"OneImportCopyFirst", func(t *testing.T, st bothStores, a, b string) { importAll(t, st, b, a) }},
		{"LiveThenCopy", func(t *testing.T, st bothStores, a, b string) { importAll(t, st, a); importAll(t, st, b) }},
		{"CopyThenLive", func(t *testing.T, st bothStores, a, b string) { importAll(t, st, b); importAll(t, st, a) }},
		{"AtOnce", func(t *testing.T, st bothStores, a, b string) {
			var wg sync.WaitGroup
			for _, p := range []string{a, b, b, a} {
				wg.Add(1)
				go func() { defer wg.Done(); importAll(t, st, p) }()
			}
			wg.Wait()
		}},
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			for _, o := range orders {
				t.Run(o.name, func(t *testing.T) {
					ctx := context.Background()
					dir := t.TempDir()
					st := openBoth(t, backend)
					a, b := filepath.Join(dir, "projects"), filepath.Join(dir, "backup")
					for _, d := range []string{a, b} {
						os.MkdirAll(filepath.Join(d, "-p"), 0o755)
					}
					writeFile(t, filepath.Join(a, "-p", sid+".jsonl"), live)
					writeFile(t, filepath.Join(b, "-p", sid+".jsonl"), part)
					o.run(t, st, a, b)
					for move := range 4 {
						checkWhole(t, st, sid, live, filepath.Join(a, "-p", sid+".jsonl"))
						a2, b2 := filepath.Join(dir, fmt.Sprintf("projects%d", move)), filepath.Join(dir, fmt.Sprintf("backup%d", move))
						if err := os.Rename(a, a2); err != nil {
							t.Fatal(err)
						}
						if err := os.Rename(b, b2); err != nil {
							t.Fatal(err)
						}
						a, b = a2, b2
						if move%2 == 0 {
							importAll(t, st, b, a)
						} else {
							importAll(t, st, a, b)
						}
					}
					checkWhole(t, st, sid, live, filepath.Join(a, "-p", sid+".jsonl"))
					if _, n, err := st.FindSessions(ctx, cairn.SessionFilter{}); err != nil || n != 1 {
						t.Fatalf("%d sessions (%v), want 1", n, err)
					}
				})
			}
			t.Run("Diverged", func(t *testing.T) {
				dir := t.TempDir()
				st := openBoth(t, backend)
				a, b := filepath.Join(dir, "projects"), filepath.Join(dir, "backup")
				for _, d := range []string{a, b} {
					os.MkdirAll(filepath.Join(d, "-p"), 0o755)
				}
				other := part + chainLine(21, "user", "another question")
				writeFile(t, filepath.Join(a, "-p", sid+".jsonl"), live)
				writeFile(t, filepath.Join(b, "-p", sid+".jsonl"), other)
				importAll(t, st, a)
				importAll(t, st, b, a)
				checkWhole(t, st, sid, live, filepath.Join(a, "-p", sid+".jsonl"))
				copyPath := filepath.Join(b, "-p", sid+".jsonl")
				id := cairn.SourceKey{Agent: cairn.AgentClaudeCode, ID: sid, Path: copyPath}.CopyID()
				checkWhole(t, st, id, other, copyPath)
			})
		})
	}
}

// importAll imports paths in one import of several workers.
func importAll(t *testing.T, st bothStores, paths ...string) {
	t.Helper()
	im := &inscribe.Importer{Store: st, Format: claudecode.Format{}, Workers: 8}
	rep, err := im.Import(context.Background(), paths)
	if err != nil {
		t.Error(err)
		return
	}
	for _, f := range rep.Files {
		if f.Error != "" {
			t.Errorf("%s: %s", f.Path, f.Error)
		}
	}
}

// checkWhole fails unless session id stores want, once, at its first
// generation, read from path.
func checkWhole(t *testing.T, st bothStores, id, want, path string) {
	t.Helper()
	ctx := context.Background()
	lines, err := st.FindAllLines(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, l := range lines {
		got.Write(l.Raw)
	}
	if n := strings.Count(want, "\n"); len(lines) != n || got.String() != want {
		t.Fatalf("session %s keeps %d raw lines (%d bytes), want the transcript's %d (%d bytes)", id, len(lines), got.Len(), n, len(want))
	}
	src, err := st.FindSource(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if src.Generation != 0 || src.Path != path {
		t.Fatalf("session %s: generation %d, read from %s; want 0, from %s", id, src.Generation, src.Path, path)
	}
}

// TestImport_MovedPath: a transcript whose folder moved, with nothing new
// in it, shows its new path after the next import, on both stores.
// Before: the session went on naming the old path, unchanged.
func TestImport_MovedPath(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			st := openBoth(t, backend)
			old, moved := filepath.Join(dir, "a"), filepath.Join(dir, "b")
			os.MkdirAll(old, 0o755)
			writeFile(t, filepath.Join(old, sid+".jsonl"), chainLine(1, "user", "q"), chainLine(2, "assistant", "a"))
			importAll(t, st, old)
			if err := os.Rename(old, moved); err != nil {
				t.Fatal(err)
			}
			importAll(t, st, moved)
			checkWhole(t, st, sid, chainLine(1, "user", "q")+chainLine(2, "assistant", "a"), filepath.Join(moved, sid+".jsonl"))
			s, err := st.FindSessionByID(context.Background(), sid)
			if err != nil || s.Path != filepath.Join(moved, sid+".jsonl") || s.Rounds != 1 {
				t.Fatalf("the moved session: %+v (%v)", s, err)
			}
		})
	}
}
