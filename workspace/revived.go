package workspace

import (
	"os"
	"strings"

	"github.com/cairn-dev/cairn"
)

// revivedDir holds, per session, the line naming the session cairn
// prepared when that session's context ran out: .cairn/revived/<session>.
const revivedDir = "revived"

// SetRevived records line (such as the command that resumes a revived
// session) for session, replacing an earlier one.
func (w *Workspace) SetRevived(session, line string) error {
	path, err := w.revivedPath(session)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(w.private(revivedDir), 0o755); err != nil {
		return err
	}
	return writeFile(path, []byte(strings.TrimSpace(line)+"\n"))
}

// Revived returns the line recorded for session by [Workspace.SetRevived],
// "" if none.
func (w *Workspace) Revived(session string) (string, error) {
	path, err := w.revivedPath(session)
	if err != nil {
		return "", err
	}
	data, err := readFile(path)
	return strings.TrimSpace(string(data)), err
}

func (w *Workspace) revivedPath(session string) (string, error) {
	if !NamesFile(session) {
		return "", cairn.Errorf(cairn.EINVALID, "Session id %q cannot name a file.", session)
	}
	return w.private(revivedDir, session), nil
}
