package readrule

import (
	"fmt"
	"os"
)

// SameOpen checks that the file another opener (SQLite, which opens by
// name) holds open as path, the name it resolved, is f, the file [Open]
// opened and checked just before: otherwise a path swapped between the
// check and the other's open would be read. path is opened again under
// the rule and must be f's file; and where the system lists a process's
// descriptors (Linux), one other than f's must be open on f's file, so
// that a folder swapped for a link only while the opener opened, and
// back, is caught too. Call it while the opener holds the file. A
// refusal wraps [ErrRefused].
func SameOpen(f *os.File, path string, folders []string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	g, err := Open(path, folders)
	if err != nil {
		return fmt.Errorf("%w: swapped for a link or another file while it was opened (as %s)", ErrRefused, path)
	}
	gi, err := g.Stat()
	g.Close()
	if err != nil {
		return err
	}
	if !os.SameFile(fi, gi) || !heldElsewhere(fi, f.Fd()) {
		return fmt.Errorf("%w: swapped for a link or another file while it was opened (as %s)", ErrRefused, path)
	}
	return nil
}
