//go:build unix

package readrule

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestBeneath: both ways of opening beneath a folder (openat2, and the
// walk kernels without it get) open a plain path and refuse a link at
// any component, a link to the folder's parent included.
func TestBeneath(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.MkdirAll(filepath.Join(dir, "out", "b"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "b", "f"), []byte("in"), 0o644)
	os.WriteFile(filepath.Join(dir, "out", "b", "f"), []byte("out"), 0o644)
	os.Symlink(filepath.Join(dir, "out"), filepath.Join(root, "link"))
	os.Symlink("a", filepath.Join(root, "inner"))
	os.Symlink("../out/b/f", filepath.Join(root, "a", "up"))
	walk := func(dir, rel string) (*os.File, error) {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			return nil, err
		}
		defer unix.Close(fd)
		return walkBeneath(fd, dir, rel)
	}
	for name, open := range map[string]func(string, string) (*os.File, error){"openat2": openBeneath, "walk": walk} {
		t.Run(name, func(t *testing.T) {
			f, err := open(root, filepath.Join("a", "b", "f"))
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			for _, rel := range []string{"link/b/f", "inner/b/f", "a/up", "a/../../out/b/f"} {
				if f, err := open(root, rel); !errors.Is(err, errLink) {
					if f != nil {
						f.Close()
					}
					t.Errorf("%s: %v, want a link refused", rel, err)
				}
			}
			if _, err := open(root, "a/missing"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("missing: %v", err)
			}
		})
	}
}

// TestReadFile: a file over the bound is refused, not read; a FIFO is
// refused at once; a link inside the folder is followed, one out refused.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "small"), []byte("12345"), 0o644)
	os.Symlink("small", filepath.Join(dir, "alias"))
	os.Symlink("/etc/passwd", filepath.Join(dir, "passwd"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(filepath.Join(dir, "alias"), []string{dir}, 5); err != nil || string(b) != "12345" {
		t.Fatalf("alias: %q %v", b, err)
	}
	for name, want := range map[string]string{"small": "more than the 4", "passwd": "a link to /etc/passwd", "fifo": "a named pipe"} {
		if _, err := ReadFile(filepath.Join(dir, name), []string{dir}, 4); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want refused: %s", name, err, want)
		}
	}
}
