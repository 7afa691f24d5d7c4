//go:build unix && !linux

package readrule

import (
	"os"

	"golang.org/x/sys/unix"
)

// openBeneath opens rel below the folder dir component by component
// (no openat2 outside Linux), refusing a link at any of them (errLink).
func openBeneath(dir, rel string) (*os.File, error) {
	root, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(root)
	return walkBeneath(root, dir, rel)
}
