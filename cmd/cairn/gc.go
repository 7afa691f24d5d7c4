package main

import "runtime/debug"

// The collector's settings during an import or a reindex: see [Main.batchGC].
const (
	batchGCPercent  = 200
	batchSoftMemory = 80 << 20
)

// batchGC trades memory for time while an import or a reindex runs, and
// returns what restores the collector. An import allocates about its
// corpus again in decoded lines, blocks and rows, little of it live: the
// collector runs when the heap has tripled instead of doubled, under a
// soft limit of 80 MiB that keeps the heap bounded (a line of a million
// blocks included). Measured paired on 2 cores: an import of 100 MB took
// 1.49–1.53 s instead of 1.72–1.76 s, peak RSS 90–94 MB instead of 76–78;
// of a million-block line, 103 MB instead of 125 MB, no slower.
//
// The collector is the process's: it is tuned only when main runs this
// Main (a test's Run shares its process with other tests), and never over
// GOGC or GOMEMLIMIT set by the user.
func (m *Main) batchGC() (restore func()) {
	if !m.ownsProcess || m.Getenv("GOGC") != "" || m.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(batchGCPercent)
	limit := debug.SetMemoryLimit(batchSoftMemory)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
