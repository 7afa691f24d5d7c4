package inscribe

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrRefused marks a path [Open] does not read: a link out of the
// transcript folders, or no regular file. An import reports such a file as
// [StatusSkipped], with the reason.
var ErrRefused = errors.New("skipped")

// Open opens path for reading as a transcript. It is the one rule that
// import, serve --watch and the hooks apply to what they read:
//
//   - Only a regular file is read. A FIFO would block a read forever, a
//     device (/dev/zero) never end, a socket or a folder hold no lines:
//     each is refused with what it is. The file is opened without
//     blocking and checked after opening, so a path swapped for a FIFO
//     meanwhile is caught too, and opening never waits for a writer.
//   - With folders, path must lead inside one of them once every symlink
//     is resolved (the folders' own included): a link in a transcript
//     folder is followed only to a file inside the transcript folders.
//     Without folders, path is read wherever it leads: the person named
//     it.
//
// A refused path's error wraps [ErrRefused] and says why; a missing one
// is [fs.ErrNotExist].
func Open(path string, folders []string) (*os.File, error) {
	real, err := within(path, folders)
	if err != nil {
		return nil, err
	}
	// Having checked where path leads, open that file and no link put in
	// its place since.
	f, err := openNonBlocking(real, len(folders) > 0)
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

// within returns the file path leads to, symlinks resolved, or an error
// wrapping [ErrRefused] if folders are given and it lies in none of them.
// Without folders, path is returned as it is.
func within(path string, folders []string) (string, error) {
	if len(folders) == 0 {
		return path, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", err
	}
	for _, d := range folders {
		if inside(real, realPath(d)) {
			return real, nil
		}
	}
	where := "not under a transcript folder"
	if l, err := os.Lstat(path); err == nil && l.Mode()&os.ModeSymlink != 0 {
		where = "a link to " + real + ", not under a transcript folder"
	}
	return "", fmt.Errorf("%w: %s (%s)", ErrRefused, where, strings.Join(folders, ", "))
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

// inside reports whether path is dir or lies under it; both are clean
// absolute paths.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
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
