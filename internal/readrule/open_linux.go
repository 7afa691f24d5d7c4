//go:build linux

package readrule

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openBeneath opens rel below the folder dir with openat2, refusing a
// link at any component (errLink) and never resolving above dir; a
// kernel without openat2 (before 5.6, or a sandbox that forbids it) gets
// the component walk.
func openBeneath(dir, rel string) (*os.File, error) {
	root, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(root)
	how := &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for range 16 {
		fd, err := unix.Openat2(root, rel, how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), filepath.Join(dir, rel)), nil
		case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR):
			continue // a rename raced the lookup
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM), errors.Is(err, unix.E2BIG):
			return walkBeneath(root, dir, rel)
		case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
			return nil, errLink
		default:
			return nil, &os.PathError{Op: "open", Path: filepath.Join(dir, rel), Err: err}
		}
	}
	return nil, &os.PathError{Op: "open", Path: filepath.Join(dir, rel), Err: unix.EAGAIN}
}
