package sqlite

import (
	"bytes"
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/klauspost/compress/s2"
)

// TestCompress_Long checks that a long line compresses to the bytes S2
// gives, without allocating S2's worst-case room on the Go heap (which
// raised the collector's goal by twice a long line).
func TestCompress_Long(t *testing.T) {
	b := bytes.Repeat([]byte(`{"type":"text","text":"block 12 word"},`), 8<<20/38)
	want := s2.Encode(nil, b)
	limit := uint64(len(want)) + 1<<20
	allocated := fewestBytes(5, limit, func() {
		if got := compress(b); !bytes.Equal(got, want) {
			t.Fatalf("compressed to %d bytes, S2 gives %d", len(got), len(want))
		}
	})
	if allocated > limit {
		t.Errorf("%d bytes allocated to compress %d bytes into %d", allocated, len(b), len(want))
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
