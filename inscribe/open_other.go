//go:build !unix

package inscribe

import "os"

// openNonBlocking opens path for reading.
func openNonBlocking(path string, _ bool) (*os.File, error) { return os.Open(path) }
