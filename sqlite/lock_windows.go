//go:build windows

package sqlite

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLockByte takes a write lock on the byte at off without waiting.
// LockFileEx locks belong to the handle, as OFD locks to the descriptor on
// Linux: two stores open in one process exclude each other too.
func tryLockByte(f *os.File, off int64) (bool, error) {
	ol := windows.Overlapped{Offset: uint32(off), OffsetHigh: uint32(off >> 32)}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return false, nil
	}
	return err == nil, err
}

func unlockByte(f *os.File, off int64) {
	ol := windows.Overlapped{Offset: uint32(off), OffsetHigh: uint32(off >> 32)}
	windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}
