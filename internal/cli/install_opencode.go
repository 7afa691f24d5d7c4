package cli

import "github.com/cairn-dev/cairn/opencode"

const installOpencodeHelp = `
"cairn install opencode" sets opencode up. opencode has no hooks; its
plugins stand for them:
  .opencode/plugins/cairn.js  a plugin that hands each moment of a session
                          to cairn's live loop ("cairn hook --agent
                          opencode EVENT"), as Claude Code's hooks do:
                          the start context in every request's system
                          prompt; at a prompt, the pressure note (the
                          context at opencode's own compaction point,
                          from the last reply's tokens) and frame
                          suggestions; when a reply finishes
                          (session.idle), the session inscribed into this
                          project's store; before opencode compacts, the
                          session inscribed and cairn's line added to the
                          compaction's prompt; when opencode exits, the
                          session-end checkpoint. What cairn says for the
                          person is shown as a toast.
opencode's plugins cannot stop a tool call, so the exhaustion check of
Claude Code's hooks has no opencode counterpart; revive --to opencode
prepares a successor by hand.
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
