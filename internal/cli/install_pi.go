package cli

import (
	"bytes"
	"os"

	"github.com/cairn-dev/cairn/pi"
)

const installPiHelp = `
"cairn install pi" writes .pi/extensions/cairn.ts, an extension pi loads
by itself: when pi compacts (session_before_compact), it runs "cairn hook
--agent pi compact", which inscribes the session and gives pi its revive
(continuation block, index, the last rounds in full) as the compaction,
so the conversation goes on in place. If cairn is missing, fails or takes
over 30 s, pi compacts by itself. It also gives pi cairn's context at
the session's first prompt, pressure notes at pi's own compaction point
and the session's end line. With --user it writes
~/.pi/agent/extensions/cairn.ts (or under $PI_CODING_AGENT_DIR), which
pi loads in every project: install it at one level only, or pi runs it
twice. "cairn uninstall pi" removes the file (--user: the user's); other
extensions there are left as they are.
`

// installPi writes cairn's extension into the project's .pi/extensions
// (pi's own discovery folder; the person's other extensions there are left
// as they are), making the project a workspace if needed; with user, into
// the user's (piExtensionPath). Run again, it rewrites the file only when
// it differs.
func (m *Main) installPi(bin string, user bool) error {
	if !user {
		project, err := m.projectRoot()
		if err != nil {
			return err
		}
		if err := m.makeWorkspace(project); err != nil {
			return err
		}
	}
	path, err := m.piExtensionPath(user)
	if err != nil {
		return err
	}
	want := pi.Extension(bin)
	if err := m.editFile(path, func(b []byte) ([]byte, bool, error) {
		return want, !bytes.Equal(b, want), nil
	}, "extension"); err != nil {
		return err
	}
	m.checkCommand(bin)
	return nil
}

// uninstallPi removes the extension installPi wrote, and nothing else.
func (m *Main) uninstallPi(user bool) error {
	path, err := m.piExtensionPath(user)
	if err != nil {
		return err
	}
	return m.removeFrom(path, func([]byte) ([]byte, bool, error) {
		return nil, true, nil
	}, "extension")
}

// piExtensionPath is where cairn's pi extension goes: the project's
// .pi/extensions/cairn.ts, or with user pi's own folder's extensions/
// under $HOME (or $PI_CODING_AGENT_DIR).
func (m *Main) piExtensionPath(user bool) (string, error) {
	if user {
		home := m.Getenv("HOME")
		if home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				return "", err
			}
		}
		return pi.UserExtensionPath(pi.Home(m.Getenv, home)), nil
	}
	project, err := m.projectRoot()
	if err != nil {
		return "", err
	}
	return pi.ExtensionPath(project), nil
}
