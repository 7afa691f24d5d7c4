// Command cairnbench builds a corpus from the sample transcripts and prints
// the figures the foundation issue names: import MB/s, peak RSS, re-import
// time after one appended round in a long session, search p50/p99, and the
// same search done by rg over the raw files.
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
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"syscall"
	"time"

	"cairn"
	"cairn/bench"
	"cairn/claudecode"
	"cairn/codex"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "import-child" {
		if err := importChild(os.Args[2], os.Args[3], len(os.Args) > 4 && os.Args[4] == "codex"); err != nil {
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
	samples := flag.String("samples", "testdata/claudecode", "sample transcripts to build from")
	nq := flag.Int("queries", 200, "search queries to time")
	codexSize := flag.String("codex", "", "size of the Codex corpus imported after the Claude Code one (default: -size; 0 to skip)")
	codexSamples := flag.String("codex-samples", "testdata/codex", "Codex rollouts to build it from")
	flag.Parse()
	corpusBytes, err := parseSize(*size)
	if err != nil {
		return err
	}
	longBytes, err := parseSize(*long)
	if err != nil {
		return err
	}
	ctx := context.Background()
	g, err := bench.NewGenerator(*samples, 1)
	if err != nil {
		return err
	}

	corpus := filepath.Join(*dir, "corpus-"+*size)
	if err := ensureCorpus(g, corpus, corpusBytes); err != nil {
		return err
	}
	got, files, err := bench.DirSize(corpus)
	if err != nil {
		return err
	}
	fmt.Printf("corpus        %d files, %.1f MB (%s)\n", files, float64(got)/1e6, corpus)

	// Import in a child process, so its peak RSS is the import's own.
	storePath := filepath.Join(*dir, "store-"+*size, "cairn.db")
	os.RemoveAll(filepath.Dir(storePath))
	start := time.Now()
	cmd := exec.Command(os.Args[0], "import-child", storePath, corpus)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	el := time.Since(start)
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	dbSize := fileSizes(storePath)
	fmt.Printf("import        %.1f MB/s (%.1f s), peak RSS %.0f MB, store %.1f MB\n",
		float64(got)/1e6/el.Seconds(), el.Seconds(), float64(rss)/1024, float64(dbSize)/1e6)

	st, err := bench.OpenStore(storePath)
	if err != nil {
		return err
	}
	queries := g.Queries(*nq)
	st.Search(ctx, queries[:10]) // warm the page cache
	lat, hits, err := st.Search(ctx, queries)
	st.Close()
	if err != nil {
		return err
	}
	fmt.Printf("search        p50 %s, p99 %s over %d queries (%d hits)\n", ms(lat.Percentile(50)), ms(lat.Percentile(99)), len(lat), hits)
	rgQueries := queries[:min(20, len(queries))]
	if rgLat, ok, err := bench.Ripgrep(corpus, rgQueries); err != nil {
		return err
	} else if ok {
		// The same queries five times over: a millisecond figure on a shared
		// machine wants more samples than rg's hundred-millisecond one.
		var repeated []string
		for range 5 {
			repeated = append(repeated, rgQueries...)
		}
		cairnLat, _, _ := reopenSearch(ctx, storePath, repeated)
		fmt.Printf("rg            p50 %s over %d queries: cairn is %.0f× faster (p50 %s on the same queries)\n",
			ms(rgLat.Percentile(50)), len(rgLat), float64(rgLat.Percentile(50))/float64(max(cairnLat.Percentile(50), 1)), ms(cairnLat.Percentile(50)))
	} else {
		fmt.Println("rg            not installed: no comparison")
	}

	if *codexSize == "" {
		*codexSize = *size
	}
	if *codexSize != "0" {
		if err := measureCodexImport(g, *dir, *codexSize, *codexSamples); err != nil {
			return err
		}
	}
	if longBytes > 0 {
		if err := measureReimport(ctx, g, *dir, longBytes); err != nil {
			return err
		}
	}
	return nil
}

// measureCodexImport builds a corpus of Codex rollouts of the given size
// and imports it as the Claude Code corpus is imported: in a child
// process, into a fresh store.
func measureCodexImport(g *bench.Generator, dir, size, samplesDir string) error {
	want, err := parseSize(size)
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
	cmd := exec.Command(os.Args[0], "import-child", storePath, corpus, "codex")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("import codex: %w", err)
	}
	el := time.Since(start)
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	fmt.Printf("import codex  %.1f MB/s (%.1f s), peak RSS %.0f MB, store %.1f MB (%d rollouts, %.1f MB)\n",
		float64(got)/1e6/el.Seconds(), el.Seconds(), float64(rss)/1024, float64(fileSizes(storePath))/1e6, files, float64(got)/1e6)
	return nil
}

func reopenSearch(ctx context.Context, storePath string, qs []string) (bench.Latencies, int, error) {
	st, err := bench.OpenStore(storePath)
	if err != nil {
		return nil, 0, err
	}
	defer st.Close()
	return st.Search(ctx, qs)
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

func importChild(storePath, corpus string, rollouts bool) error {
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
	var format cairn.Transcript = claudecode.Format{}
	if rollouts {
		format = codex.Format{}
	}
	st, err := bench.OpenStoreFormat(storePath, format)
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

func ensureCorpus(g *bench.Generator, dir string, size int64) error {
	if got, _, err := bench.DirSize(dir); err == nil && got >= size {
		return nil
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var total int64
	for total < size {
		// Sessions of 0.2–4 MB, like real ones.
		_, n, err := g.Session(dir, int64(200<<10+int(total)%(4<<20)))
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

func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: want e.g. 200MB or 1GB", s)
	}
	return int64(f * float64(mult)), nil
}
