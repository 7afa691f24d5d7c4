package rusage

import (
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// TestMaxrssUnits: ru_maxrss is kilobytes on Linux and the BSDs, bytes on
// macOS; a peak read the Linux way on a Mac is 1,024 times too large.
func TestMaxrssUnits(t *testing.T) {
	for _, c := range []struct {
		goos string
		want int64
	}{{"linux", 2048 * 1024}, {"freebsd", 2048 * 1024}, {"darwin", 2048}, {"ios", 2048}} {
		if got := maxrssBytes(c.goos, 2048); got != c.want {
			t.Errorf("%s: maxrss 2048 is %d bytes, want %d", c.goos, got, c.want)
		}
	}
}

// TestSelf: the process's CPU time grows with work it does.
func TestSelf(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		t.Skip("no CPU time on", runtime.GOOS)
	}
	before := Self()
	deadline := time.Now().Add(50 * time.Millisecond)
	for x := 0; time.Now().Before(deadline); x++ {
		_ = x * x
	}
	if after := Self(); after <= before {
		t.Errorf("CPU time %v after 50 ms of work, was %v", after, before)
	}
}

// TestPeakRSS: a finished child's peak resident memory is read, in bytes.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("checked on Linux")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	if rss := PeakRSS(cmd.ProcessState); rss < 64<<10 {
		t.Errorf("peak RSS of true: %d bytes", rss)
	}
	if PeakRSS(nil) != 0 || CPU(nil) != 0 {
		t.Error("a process never run used something")
	}
}
