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

// maxrssBytes is getrusage's ru_maxrss in bytes: macOS and iOS count it in
// bytes, the other Unixes in kilobytes.
func maxrssBytes(goos string, maxrss int64) int64 {
	if goos == "darwin" || goos == "ios" {
		return maxrss
	}
	return maxrss * 1024
}
