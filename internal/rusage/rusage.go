// Package rusage is what a process used, for the benchmarks: its CPU time
// and a finished child's peak resident memory, read the way each OS keeps
// them (getrusage's units differ between Linux and macOS; Windows has no
// getrusage).
package rusage

import (
	"os"
	"time"
)

// Self is the user and system time this process has used (0 where the OS
// does not say).
func Self() time.Duration { return self() }

// CPU is the user and system time a finished process used.
func CPU(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

// PeakRSS is a finished process's peak resident memory in bytes (0 where
// the OS does not keep it for a process that has exited).
func PeakRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	return peakRSS(ps)
}

// maxrssBytes is getrusage's ru_maxrss in bytes: macOS and iOS count it in
// bytes, the other Unixes in kilobytes.
func maxrssBytes(goos string, maxrss int64) int64 {
	if goos == "darwin" || goos == "ios" {
		return maxrss
	}
	return maxrss * 1024
}
