//go:build !unix

package sqlite

// scratch returns n bytes of zeroed memory and the function that releases
// it (on Unix, memory outside the Go heap).
func scratch(n int) ([]byte, func()) { return make([]byte, n), func() {} }
