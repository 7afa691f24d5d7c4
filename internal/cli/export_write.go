package cli

import (
	"context"
	"path/filepath"

	"github.com/cairn-dev/cairn"
)

// writeExport is the one way a surgical export's lines leave as a file a
// client resumes: redacted with --redact, written as name in home (the
// folder the client looks in) or in --out (relative to the working
// directory), then inscribed with its lineage. It returns the file's path,
// its line count and the parents.
func (m *Main) writeExport(ctx context.Context, st *store, f *surgeryFlags, mat *cairn.Materialization, lines [][]byte, home, name, id string) (string, int, []string, error) {
	if f.redact {
		var err error
		if lines, err = m.redactLines(lines); err != nil {
			return "", 0, nil, err
		}
	}
	dir, err := m.outDir(f, home)
	if err != nil {
		return "", 0, nil, err
	}
	path := filepath.Join(dir, name)
	if err := writeAtomic(path, lines, 0o600); err != nil {
		return "", 0, nil, err
	}
	parents, err := m.register(ctx, st, path, id, mat)
	if err != nil {
		return "", 0, nil, err
	}
	return path, len(lines), parents, nil
}
