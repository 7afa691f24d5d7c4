// Command importscale times a whole `cairn import -q` into a fresh store at
// each of several GOMAXPROCS settings on one corpus of real transcripts
// (copied with fresh uuids, bench.RealCorpus), and prints the median wall
// and CPU (user+sys) of each: more cores must never make an import slower
// or hotter (issue 47). The settings are run in turn, runs times over, so
// that on a shared machine they all see the same moments; CPU time is the
// steadier figure there; each time over starts at the next setting, so
// that no setting always follows the same one. With -baseline, an older cairn binary is run
// beside each setting, for paired before/after figures, the two taking
// turns at going first; each figure is printed as its median and range.
//
//	go run ./bench/cmd/importscale -size 200MB -runs 3
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench"
	"github.com/cairn-dev/cairn/internal/rusage"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "importscale:", err)
		os.Exit(1)
	}
}

func run() error {
	size := flag.String("size", "200MB", "corpus size (e.g. 200MB, 1GB)")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "importscale"), "work folder (corpus kept between runs)")
	real := flag.String("real", "../shared/testdata/transcripts", "the real transcripts the corpus is copied from")
	procs := flag.String("procs", "1,2,4,8,16", "the GOMAXPROCS settings, comma-separated (0: unset, the default)")
	runs := flag.Int("runs", 2, "times over the settings")
	cairnBin := flag.String("cairn", "", "the cairn binary to time (default: built from this checkout, as the README installs it)")
	baseline := flag.String("baseline", "", "an older cairn binary, timed beside each setting")
	flag.Parse()
	n, err := bench.ParseSize(*size)
	if err != nil {
		return err
	}
	settings, err := parseProcs(*procs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	corpus := filepath.Join(*dir, "corpus-"+*size)
	if got, _, err := bench.DirSize(corpus); err != nil || got < n {
		os.RemoveAll(corpus)
		if _, err := bench.RealCorpus(*real, corpus, n); err != nil {
			return err
		}
	}
	got, files, err := bench.DirSize(corpus)
	if err != nil {
		return err
	}
	if *cairnBin == "" {
		*cairnBin = filepath.Join(*dir, "cairn")
		if err := bench.BuildCairn(*cairnBin); err != nil {
			return err
		}
	}
	bins := []string{*cairnBin}
	if *baseline != "" {
		bins = append(bins, *baseline)
	}
	fmt.Printf("corpus      %d files, %.1f MB of real transcripts with fresh uuids (%s)\n", files, float64(got)/1e6, corpus)
	fmt.Printf("load        %s at start\n", loadAverage())
	times := make([][]bench.Timings, len(bins)) // [binary][setting]
	for b := range bins {
		times[b] = make([]bench.Timings, len(settings))
	}
	store := filepath.Join(*dir, "store")
	for r := range *runs {
		// Each run starts at another setting, so that none is always
		// the one after the slowest (a page cache, a disk's writeback
		// of the store just removed) or always last in a run.
		for k := range settings {
			s := (r + k) % len(settings)
			p := settings[s]
			for i := range bins {
				// The binaries take turns at going first, so that
				// neither always imports after the other's writeback.
				b := (r + k + i) % len(bins)
				bin := bins[b]
				wall, cpu, err := importOnce(bin, p, store, corpus)
				if err != nil {
					return err
				}
				t := &times[b][s]
				t.Wall, t.CPU = append(t.Wall, wall), append(t.CPU, cpu)
				fmt.Fprintf(os.Stderr, "%s GOMAXPROCS=%d: %.2f s, CPU %.2f s (load %s)\n", bin, p, wall.Seconds(), cpu.Seconds(), loadAverage())
			}
		}
	}
	os.RemoveAll(store)
	fmt.Printf("load        %s at end\n", loadAverage())
	for b, bin := range bins {
		fmt.Printf("\n%s (median and range of %d runs, whole process, fresh store)\n\n", bin, *runs)
		fmt.Println("| GOMAXPROCS | wall | CPU | wall / GOMAXPROCS=2 | CPU / GOMAXPROCS=2 |")
		fmt.Println("|---|---|---|---|---|")
		ref := -1
		for s, p := range settings {
			if p == 2 {
				ref = s
			}
		}
		for s, p := range settings {
			t := times[b][s]
			name := strconv.Itoa(p)
			if p == 0 {
				name = "default"
			}
			rw, rc := "", ""
			if ref >= 0 {
				rw = fmt.Sprintf("%.2f×", ratio(t.Wall, times[b][ref].Wall))
				rc = fmt.Sprintf("%.2f×", ratio(t.CPU, times[b][ref].CPU))
			}
			fmt.Printf("| %s | %s | %s | %s | %s |\n", name, spread(t.Wall), spread(t.CPU), rw, rc)
		}
	}
	return nil
}

// importOnce imports corpus into a fresh store with GOMAXPROCS=procs (its
// default when 0) and returns the process's wall and CPU time.
func importOnce(bin string, procs int, store, corpus string) (wall, cpu time.Duration, err error) {
	if err := os.RemoveAll(store); err != nil {
		return 0, 0, err
	}
	cmd := exec.Command(bin, "import", "--store", filepath.Join(store, "cairn.db"), "-q", corpus)
	cmd.Env = os.Environ()
	if procs > 0 {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+strconv.Itoa(procs))
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall = time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("%s import (GOMAXPROCS=%d): %v: %s", bin, procs, err, out)
	}
	return wall, rusage.CPU(cmd.ProcessState), nil
}

// ratio is a's median over b's.
func ratio(a, b bench.Latencies) float64 {
	return float64(median(a)) / float64(max(median(b), 1))
}

// spread is l's median and its range, in seconds: "5.11 s (4.91–5.37)".
func spread(l bench.Latencies) string {
	if len(l) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f s (%.2f–%.2f)", median(l).Seconds(), slices.Min(l).Seconds(), slices.Max(l).Seconds())
}

// median is the middle of l, or the mean of the two middle ones.
func median(l bench.Latencies) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

func parseProcs(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("-procs: %q is not a GOMAXPROCS setting", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// loadAverage is the machine's load over the last 1, 5 and 15 minutes,
// where the OS says (Linux's /proc/loadavg).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
