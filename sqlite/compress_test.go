package sqlite

import (
	"bytes"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
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

// TestEncoders_FollowTheWork checks that the chunk encoder holds as many
// encoders as chunks are usefully compressed at once, not GOMAXPROCS of
// them: with GOMAXPROCS=16 and 16 goroutines compressing, klauspost's
// default made 16 (1.3 MB of tables each from the start, 1 MB of history
// more once used), which an import's soft memory limit then collected
// against again and again.
func TestEncoders_FollowTheWork(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	if n := encoders(); n > runtime.NumCPU() || n > maxEncoders || n < 1 {
		t.Fatalf("encoders() = %d with GOMAXPROCS=16 on %d cores, want 1..min(cores, %d)", n, runtime.NumCPU(), maxEncoders)
	}
	if n := cores(); n > runtime.NumCPU() {
		t.Fatalf("cores() = %d with GOMAXPROCS=16 on %d cores", n, runtime.NumCPU())
	}
	chunk := bytes.Repeat([]byte(`{"type":"assistant","message":{"content":"compressing chunk words"}}`+"\n"), 256<<10/70)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e := newEncoder()
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 4 {
				e.EncodeAll(chunk, nil)
			}
		})
	}
	wg.Wait()
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapInuse) - int64(before.HeapInuse)
	limit := int64(encoders())*3<<20 + 2<<20
	if held > limit {
		t.Errorf("the encoder holds %.1f MB after 16 goroutines compressed with GOMAXPROCS=16, want at most %.1f MB (%d encoders)",
			float64(held)/(1<<20), float64(limit)/(1<<20), encoders())
	}
	runtime.KeepAlive(e)
}
