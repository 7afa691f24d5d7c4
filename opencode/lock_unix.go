//go:build unix

package opencode

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile waits for the mirror's lock: one mirror writes a folder at a
// time, across processes. Closing f lets it go.
func lockFile(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX) }
