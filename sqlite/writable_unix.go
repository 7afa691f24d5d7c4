//go:build unix

package sqlite

import "syscall"

// writable reports whether this user may write the file at path, without
// opening it: closing a descriptor of the store would drop the locks
// SQLite holds on it through its own.
func writable(path string) bool {
	const wOK = 2 // W_OK
	return syscall.Access(path, wOK) == nil
}
