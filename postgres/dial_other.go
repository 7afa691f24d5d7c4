//go:build !linux

package postgres

import "syscall"

// setUserTimeout does nothing where TCP_USER_TIMEOUT is not set this way:
// keepalives and the statement deadline still hold.
func setUserTimeout(network, address string, c syscall.RawConn) error { return nil }
