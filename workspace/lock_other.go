//go:build !unix && !windows

package workspace

import (
	"os"
	"sync"
)

// Without flock, writers in one process still exclude each other; writers
// in different processes do not.
var processLock sync.Mutex

func tryLock(*os.File) error { processLock.Lock(); return nil }

func unlockFile(*os.File) { processLock.Unlock() }
