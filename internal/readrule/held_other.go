//go:build !linux

package readrule

import "os"

// heldElsewhere cannot list this process's descriptors here: true.
func heldElsewhere(os.FileInfo, uintptr) bool { return true }
