//go:build windows

package rusage

import (
	"os"
	"syscall"
	"time"
)

func self() time.Duration {
	var created, exited, kernel, user syscall.Filetime
	h, err := syscall.GetCurrentProcess()
	if err != nil || syscall.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return 0
	}
	return filetime(kernel) + filetime(user)
}

// filetime is a FILETIME duration (100 ns units) as a time.Duration.
func filetime(f syscall.Filetime) time.Duration {
	return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
}

// peakRSS is 0: Windows keeps a process's peak working set only while a
// handle to it is open, and os/exec closes it at exit.
func peakRSS(*os.ProcessState) int64 { return 0 }
