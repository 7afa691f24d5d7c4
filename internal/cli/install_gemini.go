package cli

import (
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/gemini"
)

const installGeminiHelp = `
"cairn install gemini" sets Gemini CLI up, in this project (or, with --user,
for every project: $GEMINI_CLI_HOME/.gemini/settings.json, default
~/.gemini):
  .gemini/settings.json   hooks: "cairn hook --agent gemini EVENT" for
                          SessionStart (the assembled context), BeforeAgent
                          (suggestions with the prompt), AfterAgent
                          (inscribe the turn), PreCompress (inscribe before
                          the client compresses), SessionEnd (inscribe the
                          rest, checkpoint)
Everything else in the file is kept as it is; running it again changes
nothing; "cairn uninstall gemini" removes exactly those entries. The client
warns once about a project's new hooks, then runs them.
`

// geminiHookEntries are the hooks cairn registers in Gemini CLI.
func geminiHookEntries(bin string) []claudecode.HookEntry {
	var entries []claudecode.HookEntry
	for _, event := range gemini.HookEvents {
		entries = append(entries, claudecode.HookEntry{Event: event, Command: bin + " hook --agent gemini " + event})
	}
	return entries
}

// installGemini adds cairn's hooks to Gemini CLI's settings, making the
// project a workspace if needed (the hooks stay silent outside one).
func (m *Main) installGemini(bin string, user bool) error {
	project, err := m.projectRoot()
	if err != nil {
		return err
	}
	if !user {
		if err := m.makeWorkspace(project); err != nil {
			return err
		}
	}
	path := gemini.SettingsPath(m.geminiHome(), project, user)
	if err := m.editFile(path, func(b []byte) ([]byte, bool, error) {
		return claudecode.EditHooks(b, gemini.HookEvents, geminiHookEntries(bin))
	}, "hooks"); err != nil {
		return err
	}
	m.checkCommand(bin)
	return nil
}

// uninstallGemini removes exactly what installGemini added.
func (m *Main) uninstallGemini(user bool) error {
	project, err := m.projectRoot()
	if err != nil {
		return err
	}
	return m.removeFrom(gemini.SettingsPath(m.geminiHome(), project, user), func(b []byte) ([]byte, bool, error) {
		return claudecode.EditHooks(b, gemini.HookEvents, nil)
	}, "hooks")
}
