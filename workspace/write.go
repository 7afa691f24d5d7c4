package workspace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// An edit is a file's new bytes, which writeFiles puts in place.
type edit struct {
	path string
	data []byte
}

// fsync makes a file's bytes, or a folder's entries, durable; a seam for
// the tests that count what a write waits on.
var fsync = (*os.File).Sync

// writeFile replaces path with data as [writeFiles] does.
func writeFile(path string, data []byte) error {
	return writeFiles(edit{path, data})
}

// writeFiles replaces each edit's file with its data atomically, so that
// a reader or a crash sees the old file or the new one, never a mix: the
// data goes to a temporary file in the same folder, which is synced and
// renamed over the file; once every file is renamed, each folder they are
// in is synced once. A file that already holds its data is left as it is:
// no byte of it would change, and the bytes it holds are as durable as the
// write that put them there made them. No two edits name one file.
//
// Renaming every file before syncing the folders leaves the crash cases
// of one file written at a time: each file is its old or its new bytes,
// the old ones as durable as before, since a temporary file is synced
// before it replaces anything; only which of several new files survive a
// crash before the folder syncs is open, as it was for the file being
// written.
func writeFiles(edits ...edit) error {
	var renamed []edit
	var temps []string
	defer func() {
		for _, tmp := range temps {
			os.Remove(tmp) // a no-op once renamed
		}
	}()
	for _, e := range edits {
		perm, same := current(e.path, e.data)
		if same {
			continue
		}
		tmp, err := writeTemp(e.path, e.data, perm)
		if err != nil {
			return err
		}
		temps = append(temps, tmp)
		renamed = append(renamed, e)
	}
	dirs := map[string]bool{}
	for i, e := range renamed {
		if err := os.Rename(temps[i], e.path); err != nil {
			return fmt.Errorf("write %s: %w", e.path, err)
		}
		dirs[filepath.Dir(e.path)] = true
	}
	for dir := range dirs {
		if d, err := os.Open(dir); err == nil {
			fsync(d) // best effort: some file systems cannot sync a folder
			d.Close()
		}
	}
	return nil
}

// current returns the mode path's replacement keeps (its own, else 0644)
// and whether path holds data already.
func current(path string, data []byte) (os.FileMode, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return 0o644, false
	}
	if !info.Mode().IsRegular() || info.Size() != int64(len(data)) {
		return info.Mode().Perm(), false
	}
	old, err := os.ReadFile(path)
	return info.Mode().Perm(), err == nil && bytes.Equal(old, data)
}

// writeTemp writes data to a synced temporary file beside path, with mode
// perm, and returns its name.
func writeTemp(path string, data []byte, perm os.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", path, err)
	} else if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", path, err)
	} else if err := fsync(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", path, err)
	} else if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return tmp, nil
}
