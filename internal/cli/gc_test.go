package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestBatchGC: an import tunes the collector only in cairn's own process
// and only when the user set neither GOGC nor GOMEMLIMIT, and restores it.
func TestBatchGC(t *testing.T) {
	gcPercent := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	percent, limit := gcPercent(), debug.SetMemoryLimit(-1)
	for _, c := range []struct {
		name  string
		owns  bool
		env   map[string]string
		tuned bool
	}{
		{"OwnProcess", true, nil, true},
		{"TestProcess", false, nil, false},
		{"UserGOGC", true, map[string]string{"GOGC": "50"}, false},
		{"UserGOMEMLIMIT", true, map[string]string{"GOMEMLIMIT": "1GiB"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &Main{ownsProcess: c.owns, Getenv: func(k string) string { return c.env[k] }}
			restore := m.batchGC()
			gotPercent, gotLimit := gcPercent(), debug.SetMemoryLimit(-1)
			restore()
			if c.tuned && (gotPercent != batchGCPercent || gotLimit != batchSoftMemory) {
				t.Errorf("collector at %d %%, limit %d; want %d %%, limit %d", gotPercent, gotLimit, batchGCPercent, batchSoftMemory)
			}
			if !c.tuned && (gotPercent != percent || gotLimit != limit) {
				t.Errorf("collector at %d %%, limit %d; want it untouched (%d %%, limit %d)", gotPercent, gotLimit, percent, limit)
			}
			if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != percent || l != limit {
				t.Errorf("after restore: %d %%, limit %d; want %d %%, limit %d", p, l, percent, limit)
			}
		})
	}
}

// TestStartGC: the collector does not run until the process has used
// startHeap, then runs with its defaults; an import's tuning ends the
// start mode and restores the defaults, not the start mode's.
func TestStartGC(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	defer func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}()
	m := &Main{ownsProcess: true, Getenv: func(string) string { return "" }}

	m.startGC()
	if p, l := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1); p != -1 || l != startHeap {
		t.Fatalf("start mode: %d %%, limit %d; want off, limit %d", p, l, startHeap)
	}
	// The test process has used more than a command's: its limit is
	// startHeap above what it uses now. (A collection ends the mode
	// startGC began, once its finalizer has run.)
	for deadline := time.Now().Add(5 * time.Second); starting.Load() && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	holdGC(int64(before.Sys-before.HeapReleased) + startHeap)
	var keep [][]byte
	for range 8 { // 8 MiB, well under startHeap
		keep = append(keep, make([]byte, 1<<20))
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if after.NumGC != before.NumGC {
		t.Errorf("%d collections while the process used %d MiB", after.NumGC-before.NumGC, (after.HeapAlloc-before.HeapAlloc)>>20)
	}
	for range 2 * startHeap >> 20 {
		keep = append(keep[:0], make([]byte, 1<<20))
	}
	for deadline := time.Now().Add(5 * time.Second); starting.Load() && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 {
		t.Errorf("after the first collection: %d %%, limit %d; want 100 %%, no limit", p, l)
	}
	runtime.KeepAlive(keep)

	m.startGC()
	restore := m.batchGC()
	restore()
	if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 || starting.Load() {
		t.Errorf("after an import's tuning: %d %%, limit %d, start mode %v; want 100 %%, no limit, ended", p, l, starting.Load())
	}
}
