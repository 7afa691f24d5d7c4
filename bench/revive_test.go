package bench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/bench"
)

// TestReviveFootprint times `cairn revive` as a person runs it, whole
// process (the lean build the README installs), on every long session
// the tests hold and on a 4 MB session replayed from them with fresh
// identities; issue 41's bound for the 4 MB one: a median wall time of at
// most 0.5 s and a peak resident memory of at most 100 MB. Set
// CAIRN_BENCH_REVIVE=1 to run it (it builds cairn and imports 20 MB).
func TestReviveFootprint(t *testing.T) {
	if os.Getenv("CAIRN_BENCH_REVIVE") == "" {
		t.Skip("set CAIRN_BENCH_REVIVE=1 to time revive")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "cairn")
	if err := bench.BuildCairn(bin); err != nil {
		t.Fatal(err)
	}
	long, err := filepath.Glob("../testdata/long/*.jsonl")
	if err != nil || len(long) == 0 {
		t.Fatalf("no long sessions: %v", err)
	}
	shared, _ := filepath.Glob("../../shared/testdata/transcripts/marot__spotter/long/*.jsonl")
	gen, err := bench.NewGenerator("../testdata/long", 41)
	if err != nil {
		t.Fatal(err)
	}
	big, size, err := gen.Session(t.TempDir(), 4<<20)
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TZ=UTC"}
	store := filepath.Join(dir, "cairn.db")
	paths := append(append(append([]string{}, long...), shared...), big)
	if _, err := bench.RunFootprint(bench.Command{Name: "import", Args: append([]string{bin, "import", "--store", store}, paths...)}, env); err != nil {
		t.Fatal(err)
	}
	const runs = 7
	for _, p := range paths {
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		st, _ := os.Stat(p)
		var fs bench.Footprints
		for i := 0; i < runs; i++ {
			out := filepath.Join(dir, "out", fmt.Sprint(i))
			f, err := bench.RunFootprint(bench.Command{Name: "revive", Args: []string{bin, "revive", "--store", store, "--out", out, id}}, env)
			if err != nil {
				t.Fatal(err)
			}
			fs = append(fs, f)
		}
		m := fs.Median()
		t.Logf("revive %s (%.1f MB): wall %v, cpu %v (medians of %d), peak RSS %.1f MB",
			id[:8]+"…"+id[len(id)-3:], float64(st.Size())/(1<<20), m.Wall.Round(time.Millisecond), m.CPU.Round(time.Millisecond), runs, float64(m.PeakRSS)/(1<<20))
		if p == big {
			t.Logf("the 4 MB session: %d bytes", size)
			if m.Wall > 500*time.Millisecond || m.PeakRSS > 100<<20 {
				t.Errorf("revive of a %d-byte session: wall %v, peak RSS %.1f MB; want at most 0.5 s and 100 MB", size, m.Wall, float64(m.PeakRSS)/(1<<20))
			}
		}
	}
}
