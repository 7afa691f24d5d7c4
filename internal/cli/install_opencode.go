package cli

import "github.com/cairn-dev/cairn/opencode"

const installOpencodeHelp = `
"cairn install opencode" sets opencode up. opencode has no hooks; its
plugins stand for them:
  .opencode/plugins/cairn.js  a plugin that runs "cairn import --session"
                          on the opencode data folder when a reply
                          finishes (session.idle), inscribing that
                          session into this project's store, and adds
                          what "cairn prime" prints to the system prompt
                          (experimental.chat.system.transform; once per
                          session)
opencode's plugins cannot stop a tool call or see the context's size, so
the pressure notes and the exhaustion check of Claude Code's hooks have no
opencode counterpart; revive --to opencode prepares a successor by hand.
`

// installOpencode writes cairn's plugin into the project's .opencode
// folder, making the project a workspace if needed.
func (m *Main) installOpencode(bin string) error {
	project, err := m.projectRoot()
	if err != nil {
		return err
	}
	if err := m.makeWorkspace(project); err != nil {
		return err
	}
	data := m.opencodeDataDir()
	if err := m.editFile(opencode.PluginPath(project), func(b []byte) ([]byte, bool, error) {
		return opencode.InstallPlugin(b, bin, data)
	}, "plugin"); err != nil {
		return err
	}
	m.checkCommand(bin)
	return nil
}

// uninstallOpencode removes the plugin installOpencode wrote.
func (m *Main) uninstallOpencode() error {
	project, err := m.projectRoot()
	if err != nil {
		return err
	}
	return m.removeFrom(opencode.PluginPath(project), opencode.UninstallPlugin, "plugin")
}
