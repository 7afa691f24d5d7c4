package cli

import (
	"bytes"

	"github.com/cairn-dev/cairn/pi"
)

const installPiHelp = `
"cairn install pi" writes .pi/extensions/cairn.ts, an extension pi loads
by itself: when pi compacts (session_before_compact), it runs "cairn hook
--agent pi compact", which inscribes the session and gives pi its revive
(continuation block, index, the last rounds in full) as the compaction,
so the conversation goes on in place. If cairn is missing, fails or takes
over 30 s, pi compacts by itself. "cairn uninstall pi" removes the file;
other extensions there are left as they are.
`

// installPi writes cairn's extension into the project's .pi/extensions
// (pi's own discovery folder; the person's other extensions there are left
// as they are), making the project a workspace if needed. Run again, it
// rewrites the file only when it differs.
func (m *Main) installPi(bin string) error {
	project, err := m.projectRoot()
	if err != nil {
		return err
	}
	if err := m.makeWorkspace(project); err != nil {
		return err
	}
	want := pi.Extension(bin)
	if err := m.editFile(pi.ExtensionPath(project), func(b []byte) ([]byte, bool, error) {
		return want, !bytes.Equal(b, want), nil
	}, "extension"); err != nil {
		return err
	}
	m.checkCommand(bin)
	return nil
}

// uninstallPi removes the extension installPi wrote, and nothing else.
func (m *Main) uninstallPi() error {
	project, err := m.projectRoot()
	if err != nil {
		return err
	}
	return m.removeFrom(pi.ExtensionPath(project), func([]byte) ([]byte, bool, error) {
		return nil, true, nil
	}, "extension")
}
