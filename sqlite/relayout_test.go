package sqlite_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn"
	"cairn/claudecode"
	"cairn/inscribe"
	"cairn/sqlite"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// realTranscripts returns the real transcripts of ../shared/testdata.
func realTranscripts(tb testing.TB) []string {
	tb.Helper()
	var paths []string
	filepath.Walk("../../shared/testdata/transcripts", func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".jsonl") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		tb.Skip("no real transcripts in ../../shared/testdata/transcripts")
	}
	return paths
}

// importInto imports paths into the store at path, in batches of batch
// bytes.
func importInto(tb testing.TB, path string, paths []string) {
	tb.Helper()
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	st := struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}
	im := &inscribe.Importer{Store: st, Format: claudecode.Format{}, BatchBytes: 256 << 10}
	rep, err := im.Import(context.Background(), paths)
	if err != nil || rep.Failed > 0 {
		tb.Fatalf("import: %v %s", err, rep.Summary())
	}
}

// A snapshot is what a store returns: every line's SHA-256, every block,
// and the hits of a few searches.
type snapshot struct {
	Lines  map[string][][sha256.Size]byte
	Rounds map[string][]*cairn.Round
	Hits   map[string][]*cairn.Hit
}

func takeSnapshot(tb testing.TB, path string) snapshot {
	tb.Helper()
	ctx := context.Background()
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	st := stores(db)
	sessions, _, err := st.Sessions.FindSessions(ctx, cairn.SessionFilter{Subagents: true})
	if err != nil {
		tb.Fatal(err)
	}
	s := snapshot{Lines: map[string][][sha256.Size]byte{}, Rounds: map[string][]*cairn.Round{}, Hits: map[string][]*cairn.Hit{}}
	for _, sess := range sessions {
		lines, err := st.Lines.FindAllLines(ctx, sess.ID)
		if err != nil {
			tb.Fatal(err)
		}
		for _, l := range lines {
			s.Lines[sess.ID] = append(s.Lines[sess.ID], sha256.Sum256(l.Raw))
		}
		if s.Rounds[sess.ID], err = st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID, WithBlocks: true}); err != nil {
			tb.Fatal(err)
		}
	}
	for _, q := range []string{"error handling", "test", "README", "go build", "function"} {
		if s.Hits[q], err = st.Searcher.Search(ctx, cairn.SearchQuery{Text: q, Limit: 20}); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// layoutCounts returns how many chunks are not zstd and how many blocks
// view their line.
func layoutCounts(tb testing.TB, path string) (s2Chunks, views int) {
	tb.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	if err := raw.QueryRow(`SELECT (SELECT COUNT(*) FROM chunks WHERE codec = 0), (SELECT COUNT(*) FROM blocks WHERE span IS NOT NULL)`).Scan(&s2Chunks, &views); err != nil {
		tb.Fatal(err)
	}
	return s2Chunks, views
}

// oldStore imports the real transcripts into a store at path in the
// layout before migration 0012, and returns what it holds.
func oldStore(t *testing.T, path string) snapshot {
	t.Helper()
	restore := sqlite.SetOldLayout(4)
	importInto(t, path, realTranscripts(t))
	restore()
	if c, v := layoutCounts(t, path); c == 0 || v != 0 {
		t.Fatalf("the old layout has %d S2 chunks and %d views", c, v)
	}
	return takeSnapshot(t, path)
}

// TestRelayout: a store in the old layout (S2 chunks, block text inline)
// is rewritten in place; every line reads back with the same SHA-256,
// every block with the same text, every search with the same hits, and
// the store is smaller. A new import into the new layout reads the same.
func TestRelayout(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "old.db")
	before := oldStore(t, path)
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	rep, err := db.Relayout(ctx, true, nil)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("relayout: %+v (%.1f%% of before)", *rep, 100*float64(rep.After)/float64(rep.Before))
	if rep.Relaid != rep.Sessions || rep.Chunks == 0 || rep.Lines == 0 || rep.Views == 0 || rep.After >= rep.Before*3/4 {
		t.Errorf("relayout report %+v: want every session relaid, chunks and lines checked, views made, the store smaller by a quarter at least", *rep)
	}
	if c, v := layoutCounts(t, path); c != 0 || v != rep.Views {
		t.Errorf("after the relayout: %d S2 chunks, %d views; want 0 and %d", c, v, rep.Views)
	}
	if diff := cmp.Diff(before, takeSnapshot(t, path)); diff != "" {
		t.Fatalf("the store reads differently after its relayout (-before +after):\n%s", diff)
	}
	fresh := filepath.Join(dir, "new.db")
	importInto(t, fresh, realTranscripts(t))
	// Block ids are the store's own; import order is not fixed.
	if diff := cmp.Diff(before, takeSnapshot(t, fresh), cmpopts.IgnoreFields(cairn.Block{}, "ID")); diff != "" {
		t.Fatalf("a new import reads differently from the old layout (-old +new):\n%s", diff)
	}
	db = sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	again, err := db.Relayout(ctx, true, nil)
	if err != nil || again.Relaid != 0 || again.Chunks != 0 {
		t.Errorf("a second relayout: %+v, %v; want nothing to do", again, err)
	}
}

// TestRelayout_Killed kills a child rewriting the store at random points;
// after each kill the store reads as before, and the next run carries on:
// at the end every chunk is rewritten and the store reads as before.
func TestRelayout_Killed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	before := oldStore(t, path)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	kills := 0 // of a child that had not finished
	for i := 0; i < 40; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRelayoutChild$")
		cmd.Env = append(os.Environ(), "CAIRN_RELAYOUT_CHILD="+path)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		want, done := rng.IntN(4), false
		for n := 0; n < want && sc.Scan(); n++ {
		}
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		cmd.Process.Kill()
		for sc.Scan() {
			done = done || sc.Text() == "done"
		}
		cmd.Wait()
		if !done {
			kills++
		}
		if diff := cmp.Diff(before, takeSnapshot(t, path)); diff != "" {
			t.Fatalf("kill %d: the store reads differently (-before +after):\n%s", i, diff)
		}
		if done || kills == 6 {
			break // the last run, below, finishes what is left
		}
	}
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	rep, err := db.Relayout(context.Background(), false, nil)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d kills midway; the last run: %+v", kills, *rep)
	if kills < 3 {
		t.Errorf("%d children killed midway, want 3 at least", kills)
	}
	if c, v := layoutCounts(t, path); c != 0 || v == 0 {
		t.Errorf("after the kills and a last run: %d S2 chunks, %d views", c, v)
	}
	if diff := cmp.Diff(before, takeSnapshot(t, path)); diff != "" {
		t.Fatalf("the store reads differently after the last run (-before +after):\n%s", diff)
	}
}

// TestRelayoutChild is the child TestRelayout_Killed kills: it rewrites
// the store two chunks to a transaction, printing a line after each
// session.
func TestRelayoutChild(t *testing.T) {
	path := os.Getenv("CAIRN_RELAYOUT_CHILD")
	if path == "" {
		t.Skip("run by TestRelayout_Killed")
	}
	sqlite.SetRelayoutChunks(1)
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Relayout(context.Background(), false, func(done, total int) { fmt.Println("relaid", done, total) }); err != nil {
		t.Fatal(err)
	}
	fmt.Println("done")
}
