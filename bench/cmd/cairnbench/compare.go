package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench"
	"github.com/cairn-dev/cairn/internal/rusage"
)

// The figures of issue #30, one row per corpus: import (MB/s), peak RSS,
// the store as a share of the raw history, `cairn search "error handling"` against
// `rg -i -l -F` over the raw files, and sessions/show/revive of a long
// real session; with -baseline, each beside an older cairn's, on a store
// that cairn imported itself.

// imported is one import of the corpus by one program.
type imported struct {
	name      string
	seconds   float64
	cpu       float64 // seconds, user and system
	rssMB     float64
	storeMB   float64
	storePath string
}

// importWith imports corpus into a fresh store at storePath with the cairn
// binary bin, a whole process, and returns its figures.
func importWith(name, bin, storePath, corpus string) (imported, error) {
	return timeImport(name, storePath, exec.Command(bin, "import", "--store", storePath, "-q", corpus))
}

// ccriderImport imports corpus with ccrider (github.com/neilberkman/ccrider,
// a session indexer over SQLite FTS5 that keeps messages' text, not the
// transcripts' lines) into a fresh database at storePath, a whole process
// in the scratch HOME the table set.
func ccriderImport(bin, storePath, corpus string) (imported, error) {
	return timeImport("ccrider", storePath, exec.Command(bin, "--db", storePath, "sync", corpus))
}

// timeImport runs cmd, an import into a fresh store at storePath, and
// returns its wall time, CPU, peak RSS and the store's size.
func timeImport(name, storePath string, cmd *exec.Cmd) (imported, error) {
	os.RemoveAll(filepath.Dir(storePath))
	if err := os.MkdirAll(filepath.Dir(storePath), 0o755); err != nil {
		return imported{}, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return imported{}, fmt.Errorf("%s import: %w: %s", name, err, stderr.String())
	}
	el := time.Since(start)
	rss := rusage.PeakRSS(cmd.ProcessState)
	cpu := rusage.CPU(cmd.ProcessState).Seconds()
	return imported{name: name, seconds: el.Seconds(), cpu: cpu, rssMB: float64(rss) / (1 << 20), storeMB: float64(fileSizes(storePath)) / 1e6, storePath: storePath}, nil
}

// phraseSearch times `cairn search` of q (each cairn in bins on its own
// store) against searchfloor's search of q in the first store and
// `rg -i -l -F q` over the corpus, alternated, and returns the timings in
// that order, searchfloor then rg last.
func phraseSearch(q, corpus, floor string, bins []string, stores []string, runs int) ([]bench.Timings, error) {
	var group []bench.Command
	for i, b := range bins {
		group = append(group, bench.Command{Name: "cairn search " + q, Args: []string{b, "search", "--store", stores[i], "-n", "20", q}})
	}
	group = append(group, bench.Command{Name: "searchfloor " + q, Args: []string{floor, stores[0], q}})
	group = append(group, bench.Command{Name: "rg " + q, Args: []string{"rg", "-i", "-l", "-F", q, corpus}})
	return bench.Interleaved(group, runs)
}

// sessionCommands times `cairn sessions`, `cairn show SESSION` and
// `cairn revive --format json SESSION` of one long session, with each cairn
// of bins on its own store, alternated, in a scratch HOME.
func sessionCommands(bins, stores []string, session string, runs int) (map[string][]bench.Timings, error) {
	out := map[string][]bench.Timings{}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"sessions", []string{"sessions", "-n", "50"}},
		{"show", []string{"show", session}},
		{"revive", []string{"revive", "--format", "json", session}},
	} {
		var group []bench.Command
		for i, b := range bins {
			group = append(group, bench.Command{Name: c.name, Args: append([]string{b, c.args[0], "--store", stores[i]}, c.args[1:]...)})
		}
		t, err := bench.Interleaved(group, runs)
		if err != nil {
			return nil, err
		}
		out[c.name] = t
	}
	return out, nil
}

// table prints issue #30's row for the corpus (size bytes): this cairn's
// figures and, with baseline, an older cairn's beside them, measured in
// one run.
//
// With ccrider (a path to its binary), ccrider's import of the same corpus
// is timed right after cairn's, in the same run: the issue asks cairn to
// import at four times its speed.
func table(cairnBin, baseline, ccrider, dir, label, corpus string, size int64, session string, runs int, reuse bool) error {
	bins, names := []string{cairnBin}, []string{"cairn"}
	if baseline != "" {
		bins, names = append(bins, baseline), append(names, "baseline")
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	os.Setenv("HOME", home) // revive and show never see a real ~/.claude
	var stores []string
	var sessionID string
	for i, b := range bins {
		path := filepath.Join(dir, names[i]+"-store-"+label, "cairn.db")
		if _, err := os.Stat(path); reuse && err == nil {
			stores = append(stores, path)
			sessionID = strings.TrimSuffix(filepath.Base(session), ".jsonl")
			fmt.Printf("%-9s store %.1f MB = %.1f %% of %.1f MB raw (imported by an earlier run)\n", names[i], float64(fileSizes(path))/1e6,
				100*float64(fileSizes(path))/float64(size), float64(size)/1e6)
			continue
		}
		im, err := importWith(names[i], b, path, corpus)
		if err != nil {
			return err
		}
		fmt.Printf("%-9s import %.1f MB/s (%.1f s, CPU %.1f s), peak RSS %.0f MB, store %.1f MB = %.1f %% of %.1f MB raw\n",
			names[i], float64(size)/1e6/im.seconds, im.seconds, im.cpu, im.rssMB, im.storeMB, 100*im.storeMB*1e6/float64(size), float64(size)/1e6)
		stores = append(stores, im.storePath)
		if i == 0 && ccrider != "" {
			cc, err := ccriderImport(ccrider, filepath.Join(dir, "ccrider-store-"+label, "sessions.db"), corpus)
			if err != nil {
				return err
			}
			fmt.Printf("%-9s import %.1f MB/s (%.1f s, CPU %.1f s), peak RSS %.0f MB, store %.1f MB = %.1f %% of raw: cairn imports %.1f× as fast, ccrider uses %.1f× its CPU\n",
				"ccrider", float64(size)/1e6/cc.seconds, cc.seconds, cc.cpu, cc.rssMB, cc.storeMB, 100*cc.storeMB*1e6/float64(size), cc.seconds/im.seconds, cc.cpu/im.cpu)
		}
		if session != "" {
			if out, err := exec.Command(b, "import", "--store", im.storePath, "-q", session).CombinedOutput(); err != nil {
				return fmt.Errorf("%s import %s: %v: %s", names[i], session, err, out)
			}
			sessionID = strings.TrimSuffix(filepath.Base(session), ".jsonl")
		}
	}
	if _, err := exec.LookPath("rg"); err == nil {
		floorBin := filepath.Join(filepath.Dir(cairnBin), "searchfloor") // built beside cairn (buildBinaries)
		t, err := phraseSearch("error handling", corpus, floorBin, bins, stores, 4*runs)
		if err != nil {
			return err
		}
		floor, rg := t[len(t)-2], t[len(t)-1]
		for i := range bins {
			fmt.Printf("%-9s search \"error handling\" p50 %s (CPU %s); rg -i -l -F p50 %s (CPU %s): cairn takes 1/%.1f of rg's time (%d runs, alternated)\n",
				names[i], ms(t[i].Wall.Percentile(50)), ms(t[i].CPU.Percentile(50)), ms(rg.Wall.Percentile(50)), ms(rg.CPU.Percentile(50)), ratio(rg.Wall, t[i].Wall), len(rg.Wall))
		}
		fmt.Printf("%-9s the same ranking with nothing of cairn's (bench/cmd/searchfloor) p50 %s (CPU %s): 1/%.1f of rg's time, cairn %.2f× it\n",
			"", ms(floor.Wall.Percentile(50)), ms(floor.CPU.Percentile(50)), ratio(rg.Wall, floor.Wall), ratio(t[0].Wall, floor.Wall))
	} else {
		fmt.Println("search        rg not installed: no comparison")
	}
	if sessionID != "" {
		t, err := sessionCommands(bins, stores, sessionID, 4*runs)
		if err != nil {
			return err
		}
		for _, c := range []string{"sessions", "show", "revive"} {
			line := fmt.Sprintf("%-9s %-8s", "", c)
			for i := range bins {
				line += fmt.Sprintf("  %s p50 %s (CPU %s)", names[i], ms(t[c][i].Wall.Percentile(50)), ms(t[c][i].CPU.Percentile(50)))
			}
			if len(bins) > 1 {
				line += fmt.Sprintf(": cairn %.2f× the baseline's time", ratio(t[c][0].Wall, t[c][1].Wall))
			}
			fmt.Printf("%s (%s, %d runs, alternated)\n", line, filepath.Base(session), len(t[c][0].Wall))
		}
	}
	return nil
}
