package cli

import (
	"runtime"
	"testing"
)

// TestBatchProcs: an import runs on no more processors than importProcs
// and the machine's cores, whatever GOMAXPROCS says, keeps a lower
// GOMAXPROCS, leaves a process it does not own alone, and restores it.
func TestBatchProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.SetDefaultGOMAXPROCS()
	machine := runtime.GOMAXPROCS(0)
	for _, c := range []struct {
		name      string
		owns      bool
		set, want int
	}{
		{"Sixteen", true, 16, min(machine, importProcs)},
		{"One", true, 1, 1},
		{"TestProcess", false, 16, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			runtime.GOMAXPROCS(c.set)
			m := &Main{ownsProcess: c.owns, Getenv: func(string) string { return "" }}
			restore := m.batchProcs()
			got := runtime.GOMAXPROCS(0)
			restore()
			if got != c.want {
				t.Errorf("GOMAXPROCS=%d on %d cores: the import ran on %d processors, want %d", c.set, machine, got, c.want)
			}
			if after := runtime.GOMAXPROCS(0); after != c.set {
				t.Errorf("after the import: GOMAXPROCS %d, want %d", after, c.set)
			}
		})
	}
}
