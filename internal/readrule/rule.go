// Package readrule is the one rule for every file cairn reads of an agent
// client — transcripts, the files beside them, settings, databases,
// storage trees: inside the client's folder, no link out at any
// component, a regular file only, size-bounded where the caller reads it
// whole, opened relative to the folder's descriptor so that nothing
// swapped in between a check and the open is read.
package readrule

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// ErrRefused marks a path [Open] does not read: a link out of the
// folders, or no regular file, or a file larger than its bound.
var ErrRefused = errors.New("skipped")

// errLink is what opening beneath a folder returns when a component of
// the path is a link (or leads above the folder): the caller resolves
// the links and opens again what they lead to, with no link left.
var errLink = errors.New("a link in the path")

// Open opens path for reading:
//
//   - Only a regular file is read. A FIFO would block a read forever, a
//     device (/dev/zero) never end, a socket or a folder hold no lines:
//     each is refused with what it is. The file is opened without
//     blocking and checked after opening, so a path swapped for a FIFO
//     meanwhile is caught too, and opening never waits for a writer.
//   - With folders, path must lead inside one of them once every symlink
//     is resolved (the folders' own included): a link in a folder is
//     followed only to a file inside the folders. The file is then opened
//     relative to its folder's descriptor with no link allowed at any
//     component (openat2's RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS on Linux,
//     a component-by-component O_NOFOLLOW walk on other Unix systems), so
//     a folder swapped for a link after the check is refused, not
//     followed out.
//   - Without folders, path is read wherever it leads: the person named
//     it.
//
// A refused path's error wraps [ErrRefused] and says why; a missing one
// is [fs.ErrNotExist].
func Open(path string, folders []string) (*os.File, error) {
	record(path)
	var f *os.File
	var err error
	if len(folders) == 0 {
		f, err = openNamed(path)
	} else {
		f, err = openWithin(path, folders)
	}
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: %s, not a regular file", ErrRefused, kind(info.Mode()))
	}
	return f, nil
}

// ReadFile reads the whole of path under [Open]'s rule; a file of more
// than limit bytes is refused rather than read.
func ReadFile(path string, folders []string, limit int64) ([]byte, error) {
	f, err := Open(path, folders)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > limit {
		return nil, tooLarge(info.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooLarge(int64(len(b)), limit)
	}
	return b, nil
}

func tooLarge(n, limit int64) error {
	return fmt.Errorf("%w: at least %d bytes, more than the %d such a file may hold", ErrRefused, n, limit)
}

// Stat returns what [Open] would open at path, without reading it.
func Stat(path string, folders []string) (fs.FileInfo, error) {
	f, err := Open(path, folders)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}

// openWithin opens path inside one of folders with no link at any
// component below the folder. A path with links in it is resolved and,
// if it leads inside a folder, what it leads to is opened the same way.
func openWithin(path string, folders []string) (*os.File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	for _, d := range folders {
		da, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		if rel, ok := relInside(abs, da); ok {
			f, err := openBeneath(da, rel)
			if !errors.Is(err, errLink) {
				return f, err
			}
			break
		}
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, err
	}
	for _, d := range folders {
		rd := realPath(d)
		if rel, ok := relInside(real, rd); ok {
			f, err := openBeneath(rd, rel)
			if errors.Is(err, errLink) {
				return nil, fmt.Errorf("%w: a link put in its path while it was opened (%s)", ErrRefused, real)
			}
			return f, err
		}
	}
	where := "not under a transcript folder"
	if l, err := os.Lstat(path); err == nil && l.Mode()&os.ModeSymlink != 0 {
		where = "a link to " + real + ", not under a transcript folder"
	} else if real != abs {
		where = "leads to " + real + " through a link, not under a transcript folder"
	}
	return nil, fmt.Errorf("%w: %s (%s)", ErrRefused, where, strings.Join(folders, ", "))
}

// relInside returns path relative to dir when it lies strictly under
// it; both are clean absolute paths.
func relInside(path, dir string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// realPath returns dir with its symlinks resolved, absolute; as given if
// it cannot be resolved.
func realPath(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir
}

// kind names a file mode's type for people.
func kind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	}
	return fmt.Sprintf("mode %v", m.Type())
}

// tracer is the function [Trace] installed, if any.
var tracer atomic.Pointer[func(string)]

// Trace calls fn with every path [Open], [ReadFile] and [Stat] are asked
// for until stop is called: a test learns from it every file an adapter
// reads, to attack each. One tracer at a time.
func Trace(fn func(path string)) (stop func()) {
	tracer.Store(&fn)
	return func() { tracer.Store(nil) }
}

func record(path string) {
	if fn := tracer.Load(); fn != nil {
		(*fn)(path)
	}
}
