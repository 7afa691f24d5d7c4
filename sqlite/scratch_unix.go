//go:build unix

package sqlite

import "syscall"

// scratch returns n bytes of zeroed memory outside the Go heap, and the
// function that releases it. Only the pages written become resident, and
// the collector neither counts nor paces on them: S2 asks room for the
// worst case (17% more than a long line) and writes a fraction of it.
func scratch(n int) ([]byte, func()) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n), func() {}
	}
	return b, func() { _ = syscall.Munmap(b) }
}
