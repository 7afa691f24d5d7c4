package inscribe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/sqlite"
)

const sharedTranscripts = "../../shared/testdata/transcripts"

type store struct {
	*sqlite.InscriptionStore
	*sqlite.LineStore
	db       *sqlite.DB
	sessions *sqlite.SessionStore
	rounds   *sqlite.RoundStore
}

func mustOpenStore(tb testing.TB, path string) *store {
	tb.Helper()
	st := mustOpenStoreNoCleanup(path)
	tb.Cleanup(func() { st.db.Close() })
	return st
}

// mustOpenStoreNoCleanup opens a store outside a test, for a child process.
func mustOpenStoreNoCleanup(path string) *store {
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		panic(err)
	}
	return &store{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db), db, sqlite.NewSessionStore(db), sqlite.NewRoundStore(db)}
}

func newImporter(st *store) *inscribe.Importer {
	return &inscribe.Importer{Store: st, Format: claudecode.Format{}}
}

func mustImport(tb testing.TB, im *inscribe.Importer, paths ...string) *inscribe.Report {
	tb.Helper()
	rep, err := im.Import(context.Background(), paths)
	if err != nil {
		tb.Fatal(err)
	}
	if rep.Failed > 0 {
		for _, f := range rep.Files {
			if f.Error != "" {
				tb.Errorf("%s: %s", f.Path, f.Error)
			}
		}
		tb.FailNow()
	}
	return rep
}

func transcripts(tb testing.TB) []string {
	var out []string
	for _, root := range []string{"../testdata/claudecode", sharedTranscripts} {
		if _, err := os.Stat(root); err != nil {
			tb.Logf("SKIPPING %s: not found", root)
			continue
		}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".jsonl") {
				out = append(out, p)
			}
			return err
		})
	}
	return out
}

// exported returns a session's stored lines concatenated: the JSONL export.
func exported(tb testing.TB, st *store, id string) []byte {
	tb.Helper()
	lines, err := st.FindLines(context.Background(), id, 0, 0)
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Write(l.Raw)
	}
	return buf.Bytes()
}

// index returns everything derived from a session's lines, as JSON, to
// compare two imports.
func index(tb testing.TB, st *store, id string) string {
	tb.Helper()
	ctx := context.Background()
	s, err := st.sessions.FindSessionByID(ctx, id)
	if err != nil {
		tb.Fatal(err)
	}
	s.CreatedAt, s.UpdatedAt, s.Path = time.Time{}, time.Time{}, ""
	rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: id, WithBlocks: true})
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range rounds {
		for _, b := range r.Blocks {
			b.ID = 0
		}
	}
	lines, _ := st.FindLines(ctx, id, 0, 0)
	buf, _ := json.MarshalIndent(map[string]any{"session": s, "rounds": rounds, "lines": lines}, "", " ")
	return string(buf)
}

// TestImport_RoundTrip imports every transcript we have and exports it
// again byte for byte; a second import adds nothing.
func TestImport_RoundTrip(t *testing.T) {
	st := mustOpenStore(t, filepath.Join(t.TempDir(), "cairn.db"))
	im := newImporter(st)
	for _, path := range transcripts(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			rep := mustImport(t, im, path)
			f := rep.Files[0]
			if f.Status != inscribe.StatusNew || f.Stored != f.Read || f.Read == 0 {
				t.Fatalf("first import: %+v", f)
			}
			data, _ := os.ReadFile(path)
			if got := exported(t, st, f.SessionID); !bytes.Equal(got, data) {
				t.Fatalf("export differs from %s: %d bytes, want %d", path, len(got), len(data))
			}
			before := index(t, st, f.SessionID)
			rep = mustImport(t, im, path)
			if f := rep.Files[0]; f.Status != inscribe.StatusUnchanged || f.Read != 0 || f.Stored != 0 {
				t.Fatalf("second import: %+v", f)
			}
			if after := index(t, st, f.SessionID); after != before {
				t.Fatal("second import changed the index")
			}
		})
	}
}

// TestImport_Append grows a file line by line at several points and checks
// that the store ends exactly as after one import of the whole file.
func TestImport_Append(t *testing.T) {
	for _, path := range transcripts(t) {
		data, _ := os.ReadFile(path)
		lines := claudecode.SplitLines(data)
		if len(lines) < 4 {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			dir := t.TempDir()
			whole := mustOpenStore(t, filepath.Join(dir, "whole.db"))
			id := mustImport(t, newImporter(whole), path).Files[0].SessionID
			want := index(t, whole, id)

			grown := mustOpenStore(t, filepath.Join(dir, "grown.db"))
			im := newImporter(grown)
			// Keep the file's name: subagent identity depends on it.
			file := filepath.Join(dir, "copy", strings.TrimPrefix(path, "../"))
			os.MkdirAll(filepath.Dir(file), 0o755)
			// The first import must see a line naming the session, else the
			// file keeps the name of its stem (TestImport_KeepsSessionOfPath).
			first := 1
			for !bytes.Contains(lines[first-1], []byte(`"sessionId"`)) {
				first++
			}
			cuts := []int{first, first + 1, first + 2, len(lines) / 5, len(lines) / 3, len(lines) / 2, 2 * len(lines) / 3, len(lines) - 2, len(lines) - 1, len(lines)}
			n := 0
			for _, cut := range cuts {
				if cut <= n {
					continue
				}
				var buf []byte
				for _, l := range lines[:cut] {
					buf = append(buf, l...)
				}
				if err := os.WriteFile(file, buf, 0o644); err != nil {
					t.Fatal(err)
				}
				f := mustImport(t, im, file).Files[0]
				wantStatus := inscribe.StatusAppended
				if n == 0 {
					wantStatus = inscribe.StatusNew
				}
				if f.Status != wantStatus || f.Read != cut-n {
					t.Fatalf("import at %d lines: %+v, want %s with %d lines read", cut, f, wantStatus, cut-n)
				}
				n = cut
			}
			if got := index(t, grown, id); got != want {
				t.Fatalf("appended import differs from a whole import:\n%s", firstDiff(want, got))
			}
		})
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "lengths differ"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
