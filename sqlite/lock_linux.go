package sqlite

import (
	"errors"
	"os"
	"syscall"
)

// Open file description locks (Linux 3.15+): owned by the descriptor, not
// the process.
const (
	fOFDSetLk = 37
)

// tryLockByte takes a write lock on the byte at off without waiting.
func tryLockByte(f *os.File, off int64) (bool, error) {
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: off, Len: 1}
	err := syscall.FcntlFlock(f.Fd(), fOFDSetLk, &lk)
	if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES) {
		return false, nil
	}
	return err == nil, err
}

func unlockByte(f *os.File, off int64) {
	lk := syscall.Flock_t{Type: syscall.F_UNLCK, Whence: 0, Start: off, Len: 1}
	syscall.FcntlFlock(f.Fd(), fOFDSetLk, &lk)
}
