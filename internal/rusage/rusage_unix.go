//go:build unix

package rusage

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

func self() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func peakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return maxrssBytes(runtime.GOOS, int64(ru.Maxrss))
}
