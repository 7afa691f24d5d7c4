package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Stage copies each of bins, with the cairn-full beside a cairn when
// there is one, into a folder of its own under dir and returns the copies' paths,
// so that every binary timed starts from a file written the same way. A
// binary the Go linker wrote in place (go build -o) started each hook
// 1.5-2.5 ms slower than a copy of the same bytes (hookbench, 1 GB,
// SessionStart and UserPrompt, 7f445a8 built in a worktree against its
// copy: CPU p50 16.3 against 13.9 ms, copy against copy equal), which
// made a freshly built binary lose to an older one on every event; go
// install copies from the build cache, as people get cairn.
func Stage(dir string, bins ...string) ([]string, error) {
	out := make([]string, len(bins))
	for i, bin := range bins {
		to := filepath.Join(dir, fmt.Sprintf("stage-%d", i))
		if err := os.MkdirAll(to, 0o755); err != nil {
			return nil, err
		}
		out[i] = filepath.Join(to, filepath.Base(bin))
		if err := copyFile(bin, out[i]); err != nil {
			return nil, err
		}
		full := filepath.Join(filepath.Dir(bin), "cairn-full")
		if _, err := os.Stat(full); err == nil && strings.HasPrefix(filepath.Base(bin), "cairn") {
			if err := copyFile(full, filepath.Join(to, "cairn-full")); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// copyFile writes src's bytes to a new file dst, executable, through
// write calls.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
