package workspace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// An edit is a file's new bytes, which writeFiles puts in place.
type edit struct {
	path string
	data []byte
	// held is what the file held (nil: no file) when read is set: read
	// under the lock that writes it, so writeFiles compares data with it
	// and does not read the file again.
	held []byte
	read bool
}

// fsync makes a file's bytes, or a folder's entries, durable; a seam for
// the tests that count what a write waits on.
var fsync = (*os.File).Sync

// writeFile replaces path with data as [writeFiles] does.
func writeFile(path string, data []byte) error {
	return writeFiles(edit{path: path, data: data})
}

// writeFiles replaces each edit's file with its data atomically, so that
// a reader or a crash sees the old file or the new one, never a mix: the
// data goes to a temporary file in the same folder, which is synced and
// renamed over the file; once every file is renamed, each folder they are
// in is synced once. The temporary files are synced together, then the
// folders: a file system that commits a journal makes one commit of each
// (ext4 on the bench: two waits for an exit's board and trace, was
// four). A file that already holds its data is left as it is: no byte of
// it would change, and the bytes it holds are as durable as the write
// that put them there made them. No two edits name one file.
//
// Renaming every file before syncing the folders leaves the crash cases
// of one file written at a time: each file is its old or its new bytes,
// the old ones as durable as before, since a temporary file is synced
// before it replaces anything; only which of several new files survive a
// crash before the folders sync is open, as it was for the file being
// written.
func writeFiles(edits ...edit) error {
	var todo []edit
	var temps []*os.File
	defer func() {
		for _, f := range temps {
			f.Close()
			os.Remove(f.Name()) // a no-op once renamed
		}
	}()
	for _, e := range edits {
		perm, same := current(e)
		if same {
			continue
		}
		f, err := writeTemp(e.path, e.data, perm)
		if err != nil {
			return err
		}
		temps = append(temps, f)
		todo = append(todo, e)
	}
	if err := syncAll(temps); err != nil {
		return err
	}
	var dirs []*os.File
	defer func() {
		for _, d := range dirs {
			d.Close()
		}
	}()
	seen := map[string]bool{}
	for i, e := range todo {
		if err := temps[i].Close(); err != nil {
			return fmt.Errorf("write %s: %w", e.path, err)
		}
		if err := os.Rename(temps[i].Name(), e.path); err != nil {
			return fmt.Errorf("write %s: %w", e.path, err)
		}
		if dir := filepath.Dir(e.path); !seen[dir] {
			seen[dir] = true
			if d, err := os.Open(dir); err == nil {
				dirs = append(dirs, d)
			}
		}
	}
	syncAll(dirs) // best effort: some file systems cannot sync a folder
	return nil
}

// syncAll syncs every file, at once when there are several, and returns
// the first failure.
func syncAll(files []*os.File) error {
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		if i == len(files)-1 {
			errs[i] = fsync(f)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fsync(f)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("write %s: %w", files[i].Name(), err)
		}
	}
	return nil
}

// current returns the mode e's file keeps (its own, else 0644) and
// whether it holds e's data already.
func current(e edit) (os.FileMode, bool) {
	info, err := os.Stat(e.path)
	if err != nil {
		return 0o644, false
	}
	if !info.Mode().IsRegular() || info.Size() != int64(len(e.data)) {
		return info.Mode().Perm(), false
	}
	if e.read {
		return info.Mode().Perm(), e.held != nil && bytes.Equal(e.held, e.data)
	}
	old, err := os.ReadFile(e.path)
	return info.Mode().Perm(), err == nil && bytes.Equal(old, e.data)
}

// writeTemp writes data to a temporary file beside path, with mode perm,
// not yet synced, and returns it open.
func writeTemp(path string, data []byte, perm os.FileMode) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if _, err = f.Write(data); err == nil {
		err = f.Chmod(perm)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return f, nil
}
