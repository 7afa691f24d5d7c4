//go:build !unix && !windows

package opencode

import "os"

// lockFile takes no lock where the OS has no file locks: two mirrors of
// one folder at once may both append what is new.
func lockFile(*os.File) error { return nil }
