package sqlite_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/sqlite"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// realTranscripts returns the real transcripts of ../shared/testdata.
var realTranscripts = sqlite.RealTranscripts

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
	Lines  map[string][]storedLine
	Rounds map[string][]*cairn.Round
	Hits   map[string][]*cairn.Hit
}

// A storedLine is a line's SHA-256 and its meta.
type storedLine struct {
	Sum  [sha256.Size]byte
	Line cairn.Line
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
	s := snapshot{Lines: map[string][]storedLine{}, Rounds: map[string][]*cairn.Round{}, Hits: map[string][]*cairn.Hit{}}
	for _, sess := range sessions {
		lines, err := st.Lines.FindAllLines(ctx, sess.ID)
		if err != nil {
			tb.Fatal(err)
		}
		for _, l := range lines {
			sum := sha256.Sum256(l.Raw)
			l.Raw = nil
			s.Lines[sess.ID] = append(s.Lines[sess.ID], storedLine{sum, *l})
		}
		if s.Rounds[sess.ID], err = st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID, WithBlocks: true}); err != nil {
			tb.Fatal(err)
		}
	}
	// Every hit, in an order of their own: an import reads several files
	// at once, so which of two equally ranked blocks of different
	// sessions was written first, and comes first, varies.
	for _, q := range []string{"error handling", "test", "README", "go build", "function"} {
		hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: q, Limit: 1000})
		if err != nil {
			tb.Fatal(err)
		}
		sort.Slice(hits, func(i, j int) bool {
			a, b := hits[i], hits[j]
			if a.SessionID != b.SessionID {
				return a.SessionID < b.SessionID
			}
			if a.RoundSeq != b.RoundSeq {
				return a.RoundSeq < b.RoundSeq
			}
			return a.Step < b.Step
		})
		s.Hits[q] = hits
	}
	return s
}

// layoutCounts returns how many chunks are not in the codec new chunks
// are written with and how many blocks view their line.
func layoutCounts(tb testing.TB, path string) (oldChunks, views int) {
	tb.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	if err := raw.QueryRow(`SELECT (SELECT COUNT(*) FROM chunks WHERE codec != 2), (SELECT COUNT(*) FROM blocks WHERE span IS NOT NULL)`).Scan(&oldChunks, &views); err != nil {
		tb.Fatal(err)
	}
	return oldChunks, views
}

// chunkBytes returns the bytes of the store's chunks' data and meta.
func chunkBytes(tb testing.TB, path string) (data, meta int64) {
	tb.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	if err := raw.QueryRow(`SELECT SUM(length(data)), SUM(length(meta)) FROM chunks`).Scan(&data, &meta); err != nil {
		tb.Fatal(err)
	}
	return data, meta
}

// zstdStore imports the real transcripts into a store at path in the
// layout of migration 0012 (zstd's fastest level, a line's meta fields
// one after the other), and returns what it holds.
func zstdStore(t *testing.T, path string) snapshot {
	t.Helper()
	restore := sqlite.SetRowMeta()
	importInto(t, path, realTranscripts(t))
	restore()
	if c, v := layoutCounts(t, path); c == 0 || v == 0 {
		t.Fatalf("the zstd layout has %d chunks of codec 1 and %d views", c, v)
	}
	return takeSnapshot(t, path)
}

// TestRelayout_Packed: a store of zstd chunks with their meta a line at
// a time (migration 0012's) is rewritten in place into packed meta; every
// line reads back with the same SHA-256 and meta, every block and search
// as before, the meta is under a quarter and the data as it was.
func TestRelayout_Packed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "zstd.db")
	before := zstdStore(t, path)
	data0, meta0 := chunkBytes(t, path)
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	rep, err := db.Relayout(ctx, true, nil)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	data1, meta1 := chunkBytes(t, path)
	t.Logf("relayout: %+v; chunk data %d → %d bytes (%.1f %%), meta %d → %d bytes (%.1f %%)", *rep,
		data0, data1, 100*float64(data1)/float64(data0), meta0, meta1, 100*float64(meta1)/float64(meta0))
	if rep.Relaid != rep.Sessions || rep.Chunks == 0 || rep.Lines == 0 {
		t.Errorf("relayout report %+v: want every session relaid, its chunks and lines checked", *rep)
	}
	if c, _ := layoutCounts(t, path); c != 0 {
		t.Errorf("after the relayout: %d chunks of an older codec", c)
	}
	if meta1*4 > meta0 || data1 != data0 {
		t.Errorf("chunk data %d → %d bytes, meta %d → %d: want the data as it was and the meta under a quarter", data0, data1, meta0, meta1)
	}
	if diff := cmp.Diff(before, takeSnapshot(t, path)); diff != "" {
		t.Fatalf("the store reads differently after its relayout (-before +after):\n%s", diff)
	}
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
		t.Errorf("after the relayout: %d chunks of an older codec, %d views; want 0 and %d", c, v, rep.Views)
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
	t.Run("s2", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "old.db")
		relayoutKilled(t, path, oldStore(t, path), true)
	})
	t.Run("zstd", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "zstd.db")
		relayoutKilled(t, path, zstdStore(t, path), false)
	})
}

// killChild runs test in a child process of this test binary with env,
// lets it print up to a random number below lines of progress, kills it
// within the next 3 ms, and reports whether it had printed "done".
func killChild(t *testing.T, rng *rand.Rand, test, env string, lines int) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	want, done := rng.IntN(lines), false
	for n := 0; n < want && sc.Scan(); n++ {
	}
	time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
	cmd.Process.Kill()
	for sc.Scan() {
		done = done || sc.Text() == "done"
	}
	io.Copy(io.Discard, out)
	cmd.Wait()
	return done
}

// relayoutKilled kills children rewriting the store at path, which holds
// before, then finishes the rewrite; views says whether it makes views.
func relayoutKilled(t *testing.T, path string, before snapshot, views bool) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	kills := 0 // of a child that had not finished
	for i := 0; i < 40; i++ {
		done := killChild(t, rng, "TestRelayoutChild", "CAIRN_RELAYOUT_CHILD="+path, 4)
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
	if c, v := layoutCounts(t, path); c != 0 || (views && v == 0) {
		t.Errorf("after the kills and a last run: %d chunks of an older codec, %d views", c, v)
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

// TestRelayout_VacuumsFreePages: a store in today's layout whose file is
// a twentieth free pages or more (sessions dropped; an index a migration
// rebuilt) shrinks under Relayout with vacuum though no session is
// rewritten, and reads as before.
func TestRelayout_VacuumsFreePages(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	importInto(t, path, realTranscripts(t))
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if rep, err := db.Relayout(ctx, true, nil); err != nil || rep.After > rep.Before {
		t.Fatalf("first relayout: %+v, %v", rep, err)
	}
	sessions, _, err := sqlite.NewSessionStore(db).FindSessions(ctx, cairn.SessionFilter{Subagents: true})
	if err != nil || len(sessions) < 4 {
		t.Fatalf("%d sessions: %v", len(sessions), err)
	}
	var drop []string
	for _, s := range sessions[:len(sessions)/2] {
		drop = append(drop, s.ID)
	}
	if err := sqlite.NewKeepStore(db).DropSessions(ctx, drop, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Relayout(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	before := takeSnapshot(t, path)
	rep, err := db.Relayout(ctx, true, nil)
	if err != nil || rep.Relaid != 0 || rep.After >= rep.Before*19/20 {
		t.Fatalf("relayout of a store half dropped: %+v, %v; want nothing rewritten, the file a twentieth smaller at least", rep, err)
	}
	if diff := cmp.Diff(before, takeSnapshot(t, path)); diff != "" {
		t.Fatalf("the store reads differently after its vacuum (-before +after):\n%s", diff)
	}
	t.Logf("%d of %d sessions dropped: %d → %d bytes", len(drop), len(sessions), rep.Before, rep.After)
}
