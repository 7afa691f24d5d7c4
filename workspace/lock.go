package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn"
)

// DefaultLockTimeout is how long a writer waits for another to finish.
const DefaultLockTimeout = 30 * time.Second

// lockFile is the advisory lock under .cairn/ that serializes writers:
// cairn processes and goroutines alike, since each holds its own open file.
const lockFile = "lock"

// lock takes the workspace's write lock and returns the function that
// releases it. Every read-modify-write of a workspace file happens between
// the two, so two agents never interleave their writes.
func (w *Workspace) lock() (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(w.Root, Dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock workspace: %w", err)
	}
	timeout := w.LockTimeout
	if timeout == 0 {
		timeout = DefaultLockTimeout
	}
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		err := tryLock(f)
		if err == nil {
			break
		} else if !errors.Is(err, errLocked) {
			f.Close()
			return nil, fmt.Errorf("lock workspace: %w", err)
		} else if time.Now().After(deadline) {
			f.Close()
			return nil, cairn.Errorf(cairn.ECONFLICT, "Another cairn has held the workspace lock (%s) for over %s.", f.Name(), timeout)
		}
		time.Sleep(delay)
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, nil
}

// errLocked is what tryLock returns when another holder has the lock.
var errLocked = errors.New("locked")
