//go:build windows

package opencode

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFile waits for the mirror's lock: one mirror writes a folder at a
// time, across processes. Closing f lets it go.
func lockFile(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}
