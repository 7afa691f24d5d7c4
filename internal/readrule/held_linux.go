package readrule

import (
	"os"
	"strconv"
)

// heldElsewhere reports whether a descriptor of this process other than
// fd is open on the file fi describes; true when /proc cannot tell.
func heldElsewhere(fi os.FileInfo, fd uintptr) bool {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return true
	}
	for _, e := range fds {
		if n, err := strconv.ParseUint(e.Name(), 10, 64); err != nil || uintptr(n) == fd {
			continue
		}
		if st, err := os.Stat("/proc/self/fd/" + e.Name()); err == nil && os.SameFile(st, fi) {
			return true
		}
	}
	return false
}
