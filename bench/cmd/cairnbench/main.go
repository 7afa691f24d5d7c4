// Command cairnbench builds a corpus from real transcripts (copied with
// fresh uuids) and sessions generated from the samples, and measures whole
// processes, each beside its yardstick in one paired run: cairn --help
// against a Go hello world and against startupfloor (a hello world linking
// cairn's dependencies), cairn import (MB/s, peak RSS), cairn search
// against rg -i -l -F over the raw files and against searchfloor (the same
// ranking in a program with nothing of cairn's), and the re-import of one
// appended round in a long session.
//
//	go run ./bench/cmd/cairnbench -size 1GB -long 100MB
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench"
	"github.com/cairn-dev/cairn/internal/rusage"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "import-child" {
		if err := importChild(os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "cairnbench:", err)
		os.Exit(1)
	}
}

func run() error {
	size := flag.String("size", "200MB", "corpus size (e.g. 200MB, 1GB)")
	long := flag.String("long", "100MB", "size of the long session for the re-import measure (0 to skip)")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "cairnbench"), "work folder (corpus kept between runs)")
	samples := flag.String("samples", "testdata/claudecode", "sample transcripts to build generated sessions from")
	real := flag.String("real", "../shared/testdata/transcripts", "real transcripts, copied with fresh uuids into part of the corpus (\"\" for none)")
	realShare := flag.Float64("real-share", 0.5, "share of the corpus bytes made of real transcripts")
	nq := flag.Int("queries", 20, "single-word search queries, each run as a whole cairn process and as rg")
	runs := flag.Int("runs", 5, "times over the queries (and 8× for startup)")
	codexSize := flag.String("codex", "", "size of the Codex corpus imported after the Claude Code one (default: -size; 0 to skip)")
	codexSamples := flag.String("codex-samples", "testdata/codex", "Codex rollouts to build it from")
	reuse := flag.Bool("reuse-store", false, "search the store an earlier run of this -size imported, instead of importing again (no import figure)")
	baseline := flag.String("baseline", "", "an older cairn binary: import, search and sessions/show/revive measured beside it, each on a store it imported itself")
	session := flag.String("session", "../shared/testdata/transcripts/marot__spotter/long/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl", "the long real session sessions/show/revive are timed on (\"\" to skip)")
	ccrider := flag.String("ccrider", "", "a ccrider binary (go install github.com/neilberkman/ccrider/cmd/ccrider@latest): with -table, its import of the corpus is timed beside cairn's")
	onlyTable := flag.Bool("table", false, "print issue #30's table only: import, store, search \"error handling\" against rg, sessions/show/revive (skips startup, Codex and re-import)")
	flag.Parse()
	corpusBytes, err := bench.ParseSize(*size)
	if err != nil {
		return err
	}
	longBytes, err := bench.ParseSize(*long)
	if err != nil {
		return err
	}
	ctx := context.Background()
	g, err := bench.NewGenerator(*samples, 1)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	bin, err := buildBinaries(*dir)
	if err != nil {
		return err
	}

	corpus := filepath.Join(*dir, "corpus-"+*size)
	if err := ensureCorpus(g, corpus, corpusBytes, *real, *realShare); err != nil {
		return err
	}
	got, files, err := bench.DirSize(corpus)
	if err != nil {
		return err
	}
	realBytes, _, _ := bench.DirSize(filepath.Join(corpus, "real"))
	fmt.Printf("corpus        %d files, %.1f MB, %.1f MB of it real transcripts with fresh uuids (%s)\n", files, float64(got)/1e6, float64(realBytes)/1e6, corpus)
	if *onlyTable {
		return table(bin.cairn, *baseline, *ccrider, *dir, *size, corpus, got, *session, *runs, *reuse)
	}

	// Startup: cairn --help against a Go hello world, and a hello world
	// linking cairn's dependencies, interleaved.
	lat, err := bench.Interleaved([]bench.Command{
		{Name: "cairn --help", Args: []string{bin.cairn, "--help"}},
		{Name: "hello", Args: []string{bin.hello}},
		{Name: "startupfloor", Args: []string{bin.floor}},
	}, 8**runs)
	if err != nil {
		return err
	}
	c, h, f := lat[0], lat[1], lat[2]
	fmt.Printf("startup       cairn --help p50 %s (CPU %s), a Go hello world p50 %s (CPU %s): %.2f× (interleaved, %d runs each, whole process)\n",
		ms(c.Wall.Percentile(50)), ms(c.CPU.Percentile(50)), ms(h.Wall.Percentile(50)), ms(h.CPU.Percentile(50)), ratio(c.Wall, h.Wall), len(c.Wall))
	fmt.Printf("              a hello world linking cairn's dependencies (bench/cmd/startupfloor) p50 %s (CPU %s): %.2f× the hello world, cairn %.2f× it\n",
		ms(f.Wall.Percentile(50)), ms(f.CPU.Percentile(50)), ratio(f.Wall, h.Wall), ratio(c.Wall, f.Wall))

	// Import: the cairn command, a whole process, for its time and peak RSS.
	storePath := filepath.Join(*dir, "store-"+*size, "cairn.db")
	if _, err := os.Stat(storePath); !*reuse || err != nil {
		if err := measureImport(bin.cairn, storePath, corpus, got); err != nil {
			return err
		}
	}
	if *codexSize == "" {
		*codexSize = *size
	}
	if *codexSize != "0" {
		if err := measureCodexImport(g, bin.cairn, *dir, *codexSize, *codexSamples); err != nil {
			return err
		}
	}

	// Search: each query as a whole cairn process, as searchfloor (the
	// same ranking with nothing of cairn's) and as rg over the raw files,
	// in turn. rg -l stops reading a file at its first match, as cairn
	// lists matching rounds; both ignore case, neither reads syntax.
	var groups [][]bench.Command
	for _, q := range singleWords(g.Queries(*nq * 4))[:*nq] {
		groups = append(groups, []bench.Command{
			{Name: "cairn search " + q, Args: []string{bin.cairn, "search", "--store", storePath, "-n", "20", q}},
			{Name: "searchfloor " + q, Args: []string{bin.searchFloor, storePath, q}},
			{Name: "rg " + q, Args: []string{"rg", "-i", "-l", "-F", q, corpus}},
		})
	}
	if _, err := exec.LookPath("rg"); err != nil {
		fmt.Println("search        rg not installed: no comparison")
	} else {
		t, err := bench.Alternated(groups, *runs)
		if err != nil {
			return err
		}
		cs, fs, rs := t[0], t[1], t[2]
		fmt.Printf("search        cairn search p50 %s p90 %s (CPU p50 %s), rg -i -l -F p50 %s p90 %s (CPU p50 %s): rg p50 / cairn p50 = %.2f (alternated, %d queries × %d runs, whole process)\n",
			ms(cs.Wall.Percentile(50)), ms(cs.Wall.Percentile(90)), ms(cs.CPU.Percentile(50)),
			ms(rs.Wall.Percentile(50)), ms(rs.Wall.Percentile(90)), ms(rs.CPU.Percentile(50)), ratio(rs.Wall, cs.Wall), len(groups), *runs)
		fmt.Printf("              the same ranking with nothing of cairn's (bench/cmd/searchfloor) p50 %s (CPU %s): rg %.2f× it, cairn %.2f× it\n",
			ms(fs.Wall.Percentile(50)), ms(fs.CPU.Percentile(50)), ratio(rs.Wall, fs.Wall), ratio(cs.Wall, fs.Wall))
	}

	if longBytes > 0 {
		if err := measureReimport(ctx, g, *dir, longBytes); err != nil {
			return err
		}
	}
	return nil
}

// measureImport imports corpus (size bytes) into a new store at
// storePath with the cairn command, a whole process, and prints its
// throughput and peak RSS.
func measureImport(cairnBin, storePath, corpus string, size int64) error {
	os.RemoveAll(filepath.Dir(storePath))
	start := time.Now()
	cmd := exec.Command(cairnBin, "import", "--store", storePath, "-q", corpus)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	el := time.Since(start)
	rss := rusage.PeakRSS(cmd.ProcessState)
	store := fileSizes(storePath)
	fmt.Printf("import        %.1f MB/s (%.1f s), peak RSS %.0f MB, store %.1f MB, %.1f %% of the raw history (cairn import, whole process)\n",
		float64(size)/1e6/el.Seconds(), el.Seconds(), float64(rss)/(1<<20), float64(store)/1e6, 100*float64(store)/float64(size))
	return nil
}

// ratio is a's median over b's.
func ratio(a, b bench.Latencies) float64 {
	return float64(a.Percentile(50)) / float64(max(b.Percentile(50), 1))
}

// singleWords keeps the queries of one word: rg -F takes a fixed string,
// so only those are the same search on both sides.
func singleWords(qs []string) []string {
	var out []string
	for _, q := range qs {
		if !strings.Contains(q, " ") {
			out = append(out, q)
		}
	}
	return out
}

// binaries are the programs cairnbench times, built into its folder.
type binaries struct {
	cairn       string // the lean build, as the README installs it
	hello       string // a Go hello world: the start-up yardstick
	floor       string // startupfloor: the hello world linking cairn's dependencies
	searchFloor string // searchfloor: the least a search process on this SQLite does
}

// buildBinaries builds the programs cairnbench times into dir.
func buildBinaries(dir string) (binaries, error) {
	b := binaries{
		cairn:       filepath.Join(dir, "cairn"),
		floor:       filepath.Join(dir, "startupfloor"),
		searchFloor: filepath.Join(dir, "searchfloor"),
	}
	if err := bench.BuildCairn(b.cairn); err != nil {
		return b, err
	}
	if err := bench.Build(b.floor, "github.com/cairn-dev/cairn/bench/cmd/startupfloor"); err != nil {
		return b, err
	}
	if err := bench.Build(b.searchFloor, "github.com/cairn-dev/cairn/bench/cmd/searchfloor"); err != nil {
		return b, err
	}
	var err error
	b.hello, err = bench.BuildHello(dir)
	return b, err
}

// measureReimport imports one long session, then appends one round at a
// time and times each re-import.
func measureReimport(ctx context.Context, g *bench.Generator, dir string, size int64) error {
	longDir := filepath.Join(dir, "long")
	os.RemoveAll(longDir)
	if err := os.MkdirAll(longDir, 0o755); err != nil {
		return err
	}
	path, n, err := g.Session(longDir, size)
	if err != nil {
		return err
	}
	st, err := bench.OpenStore(filepath.Join(longDir, "cairn.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	if _, err := st.Importer.Import(ctx, []string{path}); err != nil {
		return err
	}
	first := time.Since(start)
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	var lat bench.Latencies
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 20 {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if _, err := f.Write(g.Round(id, at.Add(time.Duration(i)*time.Minute))); err != nil {
			return err
		}
		f.Close()
		start := time.Now()
		rep, err := st.Importer.Import(ctx, []string{path})
		if err != nil {
			return err
		}
		if rep.Files[0].Read != 2 {
			return fmt.Errorf("re-import read %d lines, want 2", rep.Files[0].Read)
		}
		lat = append(lat, time.Since(start))
	}
	fmt.Printf("re-import     one appended round in a %.0f MB session: p50 %s, max %s (%d runs; first import %.1f s)\n",
		float64(n)/1e6, ms(lat.Percentile(50)), ms(lat.Percentile(100)), len(lat), first.Seconds())
	return nil
}

func importChild(storePath, corpus string) error {
	if path := os.Getenv("CAIRNBENCH_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if path := os.Getenv("CAIRNBENCH_TRACE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return err
		}
		defer trace.Stop()
	}
	for _, p := range []struct{ env, name string }{{"CAIRNBENCH_MUTEXPROFILE", "mutex"}, {"CAIRNBENCH_BLOCKPROFILE", "block"}, {"CAIRNBENCH_HEAPPROFILE", "heap"}} {
		path := os.Getenv(p.env)
		if path == "" {
			continue
		}
		switch p.name {
		case "mutex":
			runtime.SetMutexProfileFraction(1)
		case "block":
			runtime.SetBlockProfileRate(1)
		}
		defer writeProfile(p.name, path)
	}
	st, err := bench.OpenStore(storePath)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := st.Importer.Import(context.Background(), []string{corpus})
	if err != nil {
		return err
	}
	if rep.Failed > 0 {
		return errors.New(rep.Summary())
	}
	return nil
}

// writeProfile writes the runtime profile name to path.
func writeProfile(name, path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}

// ensureCorpus fills dir with size bytes of transcripts: share of them
// real transcripts from realDir copied with fresh uuids (under real/), the
// rest generated from the samples (under generated/). A corpus already
// there is kept.
func ensureCorpus(g *bench.Generator, dir string, size int64, realDir string, share float64) error {
	if got, _, err := bench.DirSize(dir); err == nil && got >= size {
		return nil
	}
	os.RemoveAll(dir)
	var total int64
	if realDir != "" && share > 0 {
		if _, err := os.Stat(realDir); err != nil {
			return fmt.Errorf("real transcripts: %w (-real \"\" builds from generated ones only)", err)
		}
		n, err := bench.RealCorpus(realDir, filepath.Join(dir, "real"), int64(float64(size)*share))
		if err != nil {
			return err
		}
		total += n
	}
	gen := filepath.Join(dir, "generated")
	if err := os.MkdirAll(gen, 0o755); err != nil {
		return err
	}
	for total < size {
		// Sessions of 0.2–4 MB, like real ones.
		_, n, err := g.Session(gen, int64(200<<10+int(total)%(4<<20)))
		if err != nil {
			return err
		}
		total += n
	}
	return nil
}

func fileSizes(db string) int64 {
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		if info, err := os.Stat(db + suffix); err == nil {
			n += info.Size()
		}
	}
	return n
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// measureCodexImport builds a corpus of Codex rollouts of the given size
// and imports it as the Claude Code corpus is imported: the cairn command,
// a whole process, into a fresh store.
func measureCodexImport(g *bench.Generator, cairnBin, dir, size, samplesDir string) error {
	want, err := bench.ParseSize(size)
	if err != nil {
		return err
	}
	samples, err := bench.ReadSamples(samplesDir)
	if err != nil {
		return err
	}
	corpus := filepath.Join(dir, "codex-corpus-"+size)
	if got, _, err := bench.DirSize(corpus); err != nil || got < want {
		os.RemoveAll(corpus)
		if err := os.MkdirAll(corpus, 0o755); err != nil {
			return err
		}
		for total := int64(0); total < want; {
			_, n, err := g.CodexSession(corpus, samples, int64(200<<10+int(total)%(4<<20)))
			if err != nil {
				return err
			}
			total += n
		}
	}
	got, files, err := bench.DirSize(corpus)
	if err != nil {
		return err
	}
	storePath := filepath.Join(dir, "codex-store-"+size, "cairn.db")
	os.RemoveAll(filepath.Dir(storePath))
	start := time.Now()
	cmd := exec.Command(cairnBin, "import", "--store", storePath, "-q", corpus)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("import codex: %w", err)
	}
	el := time.Since(start)
	rss := rusage.PeakRSS(cmd.ProcessState)
	fmt.Printf("import codex  %.1f MB/s (%.1f s), peak RSS %.0f MB, store %.1f MB (%d rollouts, %.1f MB; cairn import, whole process)\n",
		float64(got)/1e6/el.Seconds(), el.Seconds(), float64(rss)/(1<<20), float64(fileSizes(storePath))/1e6, files, float64(got)/1e6)
	return nil
}
