//go:build unix

package cli

import "syscall"

// makeFIFO makes a named pipe at path, for the tests that check one is
// never waited on.
func makeFIFO(path string) error { return syscall.Mkfifo(path, 0o644) }
