package sqlite

import (
	"bytes"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestCompress_Long checks that a long line compresses, with either
// codec, to bytes that decompress to it, without allocating the
// worst-case room on the Go heap (which raised the collector's goal by
// twice a long line).
func TestCompress_Long(t *testing.T) {
	b := bytes.Repeat([]byte(`{"type":"text","text":"block 12 word"},`), 8<<20/38)
	for _, c := range []codec{codecS2, codecZstd, codecPacked} {
		want := len(compressWith(c, b))
		limit := uint64(want) + 1<<20
		allocated := fewestBytes(5, limit, func() {
			got := compressWith(c, b)
			if len(got) != want {
				t.Fatalf("codec %d: compressed to %d bytes, then %d", c, want, len(got))
			}
		})
		if allocated > limit {
			t.Errorf("codec %d: %d bytes allocated to compress %d bytes into %d", c, allocated, len(b), want)
		}
		back, err := decompress(c, compressWith(c, b))
		if err != nil || !bytes.Equal(back, b) {
			t.Errorf("codec %d: %d bytes decompressed to %d (%v)", c, len(b), len(back), err)
		}
	}
	if _, err := decompress(7, nil); err == nil {
		t.Error("codec 7 decompressed")
	}
}

// fewestBytes returns the fewest bytes allocated by one of up to tries
// runs of run, stopping at the first within limit. runtime.MemStats counts
// the whole process, not run alone: a goroutine another test left behind
// (database/sql's connection opener, a store not yet closed) may allocate
// meanwhile, which only adds, so the fewest of a few runs is run's own
// cost. Like testing.AllocsPerRun it runs on one P, and with the
// collector off.
func fewestBytes(tries int, limit uint64, run func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	fewest := uint64(math.MaxUint64)
	var before, after runtime.MemStats
	for range tries {
		runtime.ReadMemStats(&before)
		run()
		runtime.ReadMemStats(&after)
		if fewest = min(fewest, after.TotalAlloc-before.TotalAlloc); fewest <= limit {
			break
		}
	}
	return fewest
}
