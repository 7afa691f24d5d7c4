package cli

import (
	"fmt"
	"path/filepath"

	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/workspace"
)

const installCodexHelp = `
"cairn install codex" sets the Codex CLI up:
  $CODEX_HOME/config.toml  the cairn MCP server ([mcp_servers.cairn],
                          "cairn mcp"), between marker comments; the
                          file's other tables and comments are kept as
                          they are (CODEX_HOME defaults to ~/.codex)
  AGENTS.md               a few lines telling the agent which cairn
                          commands it may use
Codex has no hooks: run "cairn import" to inscribe its sessions.
`

// installCodex adds cairn's MCP server to Codex's config.toml and its notes
// to the project's AGENTS.md, making the project a workspace if needed.
func (m *Main) installCodex(bin string) error {
	project, err := m.projectRoot()
	if err != nil {
		return err
	}
	if err := m.makeWorkspace(project); err != nil {
		return err
	}
	config := filepath.Join(m.codexHome(), "config.toml")
	if err := m.editFile(config, func(b []byte) ([]byte, bool, error) { return codex.InstallMCP(b, bin) }, "MCP server"); err != nil {
		return err
	}
	if err := m.editFile(filepath.Join(project, "AGENTS.md"), func(b []byte) ([]byte, bool, error) {
		s, changed := codex.InstallNotes(string(b))
		return []byte(s), changed, nil
	}, "agent notes"); err != nil {
		return err
	}
	m.checkCommand(bin)
	return nil
}

// uninstallCodex removes exactly what installCodex added.
func (m *Main) uninstallCodex() error {
	project, err := m.projectRoot()
	if err != nil {
		return err
	}
	config := filepath.Join(m.codexHome(), "config.toml")
	if err := m.removeFrom(config, func(b []byte) ([]byte, bool, error) {
		out, changed := codex.UninstallMCP(b)
		return out, changed, nil
	}, "MCP server"); err != nil {
		return err
	}
	return m.removeFrom(filepath.Join(project, "AGENTS.md"), func(b []byte) ([]byte, bool, error) {
		s, changed := codex.UninstallNotes(string(b))
		return []byte(s), changed, nil
	}, "agent notes")
}

// projectRoot is the workspace holding the current folder, else the folder.
func (m *Main) projectRoot() (string, error) {
	wd, err := m.Getwd()
	if err != nil {
		return "", err
	}
	if root, ok := workspace.Find(wd); ok {
		return root, nil
	}
	return wd, nil
}

// makeWorkspace makes project a cairn workspace (cairn init) unless it is
// one, and says so: the hooks and plugins install writes stay silent
// outside one.
func (m *Main) makeWorkspace(project string) error {
	if _, ok := workspace.Find(project); ok {
		return nil
	}
	w := workspace.New(project)
	w.Now = m.now
	if _, err := w.Init(); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "Made %s a cairn workspace (cairn init).\n", project)
	return nil
}
