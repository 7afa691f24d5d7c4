package inscribe

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A file is a transcript file an import lists, with its size when listed.
type file struct {
	path   string
	size   int64
	skip   string   // why path is not read: a folder that cannot be listed, a link out of the folders
	within []string // the folders path must lead into ([Open])
}

// transcriptFiles lists the transcript files named by paths: files as
// given, folders walked for *.jsonl and the documents the format names
// ([cairn.Documents]). A path that does not exist is an
// error; a folder inside that cannot be listed is reported and skipped,
// so one unreadable folder does not stop the others from being imported.
// A symlink in a folder is listed only if it leads inside folders, or
// inside the folder walked when folders is empty, and only if the file it
// leads to is not listed already; a link that leads out is listed as
// skipped, with where it leads.
func transcriptFiles(paths []string, folders []string, document func(string) bool) ([]file, error) {
	var out []file
	real := map[string]bool{} // the files listed, symlinks resolved
	type link struct {
		file
		to string
	}
	var links []link
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, file{path: p, size: info.Size(), within: folders})
			continue
		}
		folder, root := folders, realPath(p)
		if len(folder) == 0 {
			folder = []string{root}
		}
		// A folder given as a symlink is walked as the folder it leads to,
		// under the name given.
		walk := p
		if l, err := os.Lstat(p); err == nil && l.Mode()&os.ModeSymlink != 0 {
			walk = p + string(filepath.Separator)
		}
		err = filepath.WalkDir(walk, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() || path == walk {
					out = append(out, file{path: path, skip: fmt.Sprintf("folder skipped: %v", unwrapPath(err))})
					return fs.SkipDir
				}
				out = append(out, file{path: path, skip: fmt.Sprintf("skipped: %v", unwrapPath(err))})
				return nil
			}
			if d.IsDir() || !strings.HasSuffix(path, ".jsonl") && !document(path) {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				to, err := within(path, folder)
				switch {
				case errors.Is(err, fs.ErrNotExist):
					return nil // a dangling link holds nothing
				case err != nil:
					out = append(out, file{path: path, skip: errorText(err)})
					return nil
				}
				info, err := os.Stat(to)
				if err != nil {
					return nil
				}
				links = append(links, link{file{path: path, size: info.Size(), within: folder}, to})
				return nil
			}
			info, err := d.Info()
			if err != nil {
				out = append(out, file{path: path, skip: fmt.Sprintf("skipped: %v", unwrapPath(err))})
				return nil
			}
			if rel, err := filepath.Rel(p, path); err == nil {
				real[filepath.Join(root, rel)] = true
			}
			out = append(out, file{path: path, size: info.Size(), within: folder})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	// A link to a file listed anyway is that file: it is read once.
	sort.Slice(links, func(i, j int) bool { return links[i].path < links[j].path })
	for _, l := range links {
		if !real[l.to] {
			real[l.to] = true
			out = append(out, l.file)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

// unwrapPath returns the reason of a *fs.PathError without its path, which
// the report names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
