package inscribe

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/internal/readrule"
)

// ErrRefused marks a path [Open] does not read: a link out of the
// transcript folders, or no regular file. An import reports such a file as
// [StatusSkipped], with the reason.
var ErrRefused = readrule.ErrRefused

// Open opens path for reading as a transcript. It is the one rule that
// import, serve --watch and the hooks apply to what they read, and the
// adapters to the files beside transcripts ([readrule.Open]):
//
//   - Only a regular file is read. A FIFO would block a read forever, a
//     device (/dev/zero) never end, a socket or a folder hold no lines:
//     each is refused with what it is, opened without blocking and
//     checked after opening.
//   - With folders, path must lead inside one of them once every symlink
//     is resolved (the folders' own included): a link in a transcript
//     folder is followed only to a file inside the transcript folders,
//     which is then opened relative to its folder's descriptor with no
//     link at any component, so a folder swapped for a link meanwhile is
//     refused, not followed out.
//     Without folders, path is read wherever it leads: the person named
//     it.
//
// A refused path's error wraps [ErrRefused] and says why; a missing one
// is [fs.ErrNotExist].
func Open(path string, folders []string) (*os.File, error) {
	return readrule.Open(path, folders)
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
