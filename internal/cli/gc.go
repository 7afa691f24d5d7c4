package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// The collector's settings during an import or a reindex: see [Main.batchGC].
const (
	batchGCPercent  = 200
	batchSoftMemory = 80 << 20
)

// startHeap is the memory a process may reach before its first
// collection: see [Main.startGC].
const startHeap = 48 << 20

// starting is set while the collector is in its start mode.
var starting atomic.Bool

// startGC holds the collector back until the process has used startHeap,
// then gives it its defaults. Most commands (show, sessions, search,
// revive, a hook) live a few milliseconds and allocate a few megabytes,
// which the collector would otherwise mark two or three times over
// before the process exits: measured paired, show of a 3 MB session took
// 15.3 ms with no collection against 16.2 ms with the default. A command
// that allocates more (a whole large session, a server) collects from
// startHeap on as any Go program: the first collection ends the mode.
//
// The collector is the process's: it is tuned only when main runs this
// Main, and never over GOGC or GOMEMLIMIT set by the user.
func (m *Main) startGC() {
	if m.tunesGC() {
		holdGC(startHeap)
	}
}

// holdGC puts the collector in its start mode until the process has used
// limit bytes.
func holdGC(limit int64) {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	starting.Store(true)
	// Not a tiny allocation (under 16 bytes without pointers), whose
	// finalizer may never run: this one runs after the first collection.
	sentinel := new([64]byte)
	runtime.SetFinalizer(sentinel, func(*[64]byte) { endStartGC() })
}

// endStartGC gives the collector its defaults if it is in its start mode.
func endStartGC() {
	if starting.CompareAndSwap(true, false) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// tunesGC reports whether this Main may tune the process's collector.
func (m *Main) tunesGC() bool {
	return m.ownsProcess && m.Getenv("GOGC") == "" && m.Getenv("GOMEMLIMIT") == ""
}

// batchGC trades memory for time while an import or a reindex runs, and
// returns what restores the collector. An import allocates about its
// corpus again in decoded lines, blocks and rows, little of it live: the
// collector runs when the heap has tripled instead of doubled, under a
// soft limit of 80 MiB that keeps the heap bounded (a line of a million
// blocks included). Measured paired on 2 cores: an import of 100 MB took
// 1.49–1.53 s instead of 1.72–1.76 s, peak RSS 90–94 MB instead of 76–78;
// of a million-block line, 103 MB instead of 125 MB, no slower. The
// limit holds what the import's processors cache, at most importProcs
// of them ([Main.batchProcs]): with 16, a live heap of 17–34 MB against
// 13–27 MB with 2, and 89–92 collections against 58–61.
func (m *Main) batchGC() (restore func()) {
	if !m.tunesGC() {
		return func() {}
	}
	endStartGC()
	percent := debug.SetGCPercent(batchGCPercent)
	limit := debug.SetMemoryLimit(batchSoftMemory)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
