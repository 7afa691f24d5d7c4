//go:build unix

package readrule

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// walkBeneath opens rel below the folder open as root one component at
// a time, each with O_NOFOLLOW relative to the one before, so a link at
// any component is refused (errLink), whenever it was put there.
func walkBeneath(root int, dir, rel string) (*os.File, error) {
	parts := strings.Split(rel, string(filepath.Separator))
	fd, err := unix.Dup(root)
	if err != nil {
		return nil, err
	}
	for i, p := range parts {
		if p == "" || p == "." || p == ".." {
			unix.Close(fd)
			return nil, errLink
		}
		flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW
		if i < len(parts)-1 {
			flags |= unix.O_DIRECTORY
		} else {
			flags |= unix.O_NONBLOCK | unix.O_NOCTTY
		}
		next, err := unix.Openat(fd, p, flags, 0)
		if err != nil {
			var st unix.Stat_t
			isLink := unix.Fstatat(fd, p, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
			unix.Close(fd)
			if isLink || err == unix.ELOOP {
				return nil, errLink
			}
			return nil, &os.PathError{Op: "open", Path: filepath.Join(dir, filepath.Join(parts[:i+1]...)), Err: err}
		}
		unix.Close(fd)
		fd = next
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, rel)), nil
}
