//go:build unix

package inscribe

import (
	"os"
	"syscall"
)

// openNonBlocking opens path for reading without waiting for a writer, as
// opening a FIFO would; with noFollow, a symlink at path is refused
// (ELOOP) rather than followed.
func openNonBlocking(path string, noFollow bool) (*os.File, error) {
	flag := os.O_RDONLY | syscall.O_NONBLOCK
	if noFollow {
		flag |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(path, flag, 0)
}
