package main

import (
	"runtime/debug"
	"testing"
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
