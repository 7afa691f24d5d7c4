//go:build !unix

package cli

import "errors"

// makeFIFO fails where the OS has no named pipes in the file system: the
// tests that need one skip.
func makeFIFO(string) error { return errors.ErrUnsupported }
