package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/internal/readrule"
	"github.com/cairn-dev/cairn/workspace"
)

// installFlags are what install and uninstall share.
type installFlags struct {
	user         bool
	agentsMD     bool
	statusLine   bool
	noStatusLine bool
	pressure     string
}

func (m *Main) runInstall(ctx context.Context, args []string) error {
	var f installFlags
	fs := m.newFlagSet("install", "claude|codex|gemini|opencode|pi [flags]", `
Set Claude Code up to work with cairn, in this project (or, with --user,
for every project of yours):
  .claude/settings.json   hooks: "cairn hook EVENT" for SessionStart (the
                          assembled context), UserPromptSubmit (the
                          pressure note and suggestions), Stop (inscribe
                          new rounds), PreCompact (inscribe before
                          compaction), SessionEnd (checkpoint)
  .mcp.json               the cairn MCP server ("cairn mcp")
  .claude/settings.local.json
                          the server approved ("enabledMcpjsonServers":
                          the answer to the client's "New MCP server
                          found" question, without which it does not
                          start it) and its tools allowed ("permissions":
                          "mcp__cairn"), and cairn's commands allowed in
                          Bash ("Bash(cairn:*)": auto mode and sub-agents,
                          which cannot ask, run them); the client's
                          personal project settings, yours, not the
                          project's: keep it out of git (cairn init's
                          .gitignore does)
  CLAUDE.md               with --agents-md: a few lines teaching the agent
                          the loop: frames, the pressure note, advise and
                          revive, hand-offs
  statusLine              "cairn statusline" (context %, frame,
                          engagement), unless you have one already;
                          --no-statusline leaves it out
  .cairn/config           with --pressure 70,85: where the prompt hook tells
                          the agent its context is filling up (off: never)
With --user the hooks go to ~/.claude/settings.json and the server to
~/.claude.json, which needs no approval, and "Bash(cairn:*)" to the
permissions of ~/.claude/settings.json; the client asks before each call
of a cairn tool unless you allow "mcp__cairn" in /permissions. A project
that is not a workspace yet is made one (cairn init): the hooks stay
silent outside a workspace.

With cairn's Claude Code plugin enabled (claude plugin install
cairn@cairn), its hooks and MCP server are the plugin's: install leaves
them out, and sets the status line, which a plugin cannot (a plugin's
settings.json may set only agent and subagentStatusLine), and the
permissions. Everything else in those files is kept as it is. Running it again changes
nothing; "cairn uninstall claude" removes the entries it added (the
workspace it made stays). Claude Code runs "cairn" from PATH: install
says so if that is missing, or is another binary than this one.

`+installCodexHelp+installGeminiHelp+installOpencodeHelp+installPiHelp+`
Examples:
  cairn install claude
  cairn install claude --agents-md --no-statusline
  cairn install claude --pressure 60,80,90
  cairn install claude --user
  cairn install codex
  cairn install gemini
  cairn install opencode
  cairn install pi`)
	fs.BoolVar(&f.user, "user", false, "install for your user (~/.claude) rather than this project")
	fs.BoolVar(&f.agentsMD, "agents-md", false, "add cairn's commands to CLAUDE.md (or AGENTS.md if that is what the project has)")
	fs.BoolVar(&f.statusLine, "statusline", true, "show context %, frame and engagement in Claude Code's status line (keeps yours if you have one)")
	fs.BoolVar(&f.noStatusLine, "no-statusline", false, "leave Claude Code's status line out (same as --statusline=false)")
	fs.StringVar(&f.pressure, "pressure", "", "context occupancies (percent) that trigger the pressure note, e.g. 70,85; off for none (written to .cairn/config)")
	bin := fs.String("command", "cairn", "how Claude Code runs cairn (a name on PATH, or a path)")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 1 && fs.Arg(0) == "codex" {
		return m.installCodex(*bin)
	}
	if fs.NArg() == 1 && fs.Arg(0) == "opencode" {
		return m.installOpencode(*bin)
	}
	if fs.NArg() == 1 && fs.Arg(0) == "pi" {
		return m.installPi(*bin, f.user)
	}
	if fs.NArg() == 1 && fs.Arg(0) == "gemini" {
		return m.installGemini(*bin, f.user)
	}
	if fs.NArg() != 1 || fs.Arg(0) != "claude" {
		fs.Usage()
		return usageError("install takes one agent: claude, codex, gemini or opencode")
	}
	p, err := m.claudePaths(f.user)
	if err != nil {
		return err
	}
	if !f.user {
		if err := m.makeWorkspace(p.project); err != nil {
			return err
		}
	}
	if plugin := m.claudePlugin(p.project); plugin != "" {
		fmt.Fprintf(m.Stdout, "The %s plugin is enabled: its hooks and MCP server are cairn's; install left them out and sets what a plugin cannot: the status line.\n", plugin)
	} else {
		if err := m.editFile(p.settings, func(b []byte) ([]byte, bool, error) { return claudecode.InstallHooks(b, *bin) }, "hooks"); err != nil {
			return err
		}
		if err := m.editFile(p.mcp, func(b []byte) ([]byte, bool, error) { return claudecode.InstallMCP(b, *bin) }, "MCP server"); err != nil {
			return err
		}
	}
	if !f.user {
		var rejected bool
		if err := m.editFile(p.local(), func(b []byte) ([]byte, bool, error) {
			out, changed, r, err := claudecode.ApproveMCP(b)
			rejected = r
			return out, changed, err
		}, "MCP server approval"); err != nil {
			return err
		}
		if rejected {
			fmt.Fprintf(m.Stderr, "warning: you rejected the %q MCP server in %s (disabledMcpjsonServers); cairn left that as it is: to use its tools, approve it in the client's /mcp or remove it from that list\n",
				claudecode.MCPServerName, m.rel(p.local()))
		}
	}
	if err := m.editFile(p.permissions(f.user), func(b []byte) ([]byte, bool, error) {
		return claudecode.AllowCommands(b, *bin, filepath.Base(p.permissions(f.user)))
	}, "cairn commands permission"); err != nil {
		return err
	}
	if f.statusLine && !f.noStatusLine {
		var other string
		if err := m.editFile(p.settings, func(b []byte) ([]byte, bool, error) {
			out, changed, o, err := claudecode.InstallStatusLine(b, *bin)
			other = o
			return out, changed, err
		}, "status line"); err != nil {
			return err
		}
		if other != "" {
			fmt.Fprintf(m.Stderr, "warning: kept your statusLine (%s); to see cairn's too, have it run \"%s statusline\" with the same stdin\n", other, *bin)
		}
	}
	if f.pressure != "" {
		if _, err := workspace.ParsePressure(f.pressure); err != nil {
			return err
		}
		w, err := workspace.Open(p.project)
		if err != nil {
			return err
		}
		if err := w.SetConfig(workspace.ConfigPressure, f.pressure); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "%s: pressure = %s\n", m.rel(filepath.Join(p.project, workspace.Dir, workspace.ConfigFile)), f.pressure)
	}
	if f.agentsMD {
		if err := m.editFile(p.notes(), func(b []byte) ([]byte, bool, error) {
			s, changed := claudecode.InstallNotes(string(b))
			return []byte(s), changed, nil
		}, "agent notes"); err != nil {
			return err
		}
	}
	m.checkCommand(*bin)
	return nil
}

// claudePlugin returns the id of cairn's Claude Code plugin if the user's
// or project's settings enable it, else "".
func (m *Main) claudePlugin(project string) string {
	for _, path := range []string{
		filepath.Join(m.Getenv("HOME"), ".claude", "settings.json"),
		filepath.Join(project, ".claude", "settings.json"),
		filepath.Join(project, ".claude", claudecode.LocalSettingsFile),
	} {
		if data, err := readSettings(path); err == nil {
			if id := claudecode.PluginEnabled(data); id != "" {
				return id
			}
		}
	}
	return ""
}

// checkCommand warns when the command the hooks run is not on PATH, or is
// another binary than the one running: every hook would fail, or run a
// stale cairn.
func (m *Main) checkCommand(bin string) {
	found, err := exec.LookPath(bin)
	if err != nil {
		fmt.Fprintf(m.Stderr, "warning: %q is not on PATH, so the client cannot run the hooks: install cairn there (CGO_ENABLED=0 go install -tags lean github.com/cairn-dev/cairn/cmd/cairn@latest) or pass --command /path/to/cairn\n", bin)
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	a, errA := filepath.EvalSymlinks(found)
	b, errB := filepath.EvalSymlinks(self)
	if errA == nil && errB == nil && a != b && !strings.HasSuffix(b, ".test") {
		fmt.Fprintf(m.Stderr, "warning: the hooks will run %s, not this cairn (%s)\n", a, b)
	}
}

func (m *Main) runUninstall(ctx context.Context, args []string) error {
	var f installFlags
	fs := m.newFlagSet("uninstall", "claude|codex|gemini|opencode|pi [flags]", `
Remove what "cairn install claude" added: cairn's hooks, its MCP server
and its lines in CLAUDE.md or AGENTS.md. Everything else is kept; a file
that held only cairn's entries is removed. The workspace (.cairn/ and the
relay files) stays. "cairn uninstall codex" removes cairn's block from
$CODEX_HOME/config.toml and its lines from AGENTS.md; "cairn uninstall
gemini" cairn's hooks from .gemini/settings.json (with --user, the user's);
"cairn uninstall opencode" removes .opencode/plugins/cairn.js if cairn
wrote it.

Examples:
  cairn uninstall codex
  cairn uninstall gemini
  cairn uninstall opencode
  cairn uninstall claude
  cairn uninstall claude --user`)
	fs.BoolVar(&f.user, "user", false, "uninstall from your user (~/.claude) rather than this project")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 1 && fs.Arg(0) == "codex" {
		return m.uninstallCodex()
	}
	if fs.NArg() == 1 && fs.Arg(0) == "opencode" {
		return m.uninstallOpencode()
	}
	if fs.NArg() == 1 && fs.Arg(0) == "pi" {
		return m.uninstallPi(f.user)
	}
	if fs.NArg() == 1 && fs.Arg(0) == "gemini" {
		return m.uninstallGemini(f.user)
	}
	if fs.NArg() != 1 || fs.Arg(0) != "claude" {
		fs.Usage()
		return usageError("uninstall takes one agent: claude, codex, gemini or opencode")
	}
	p, err := m.claudePaths(f.user)
	if err != nil {
		return err
	}
	if err := m.removeFrom(p.settings, claudecode.UninstallHooks, "hooks"); err != nil {
		return err
	}
	if err := m.removeFrom(p.settings, claudecode.UninstallStatusLine, "status line"); err != nil {
		return err
	}
	if err := m.removeFrom(p.mcp, claudecode.UninstallMCP, "MCP server"); err != nil {
		return err
	}
	if err := m.removeFrom(p.permissions(f.user), claudecode.DisallowCommands, "cairn commands permission"); err != nil {
		return err
	}
	if !f.user {
		if err := m.removeFrom(p.local(), claudecode.UnapproveMCP, "MCP server approval"); err != nil {
			return err
		}
	}
	for _, name := range []string{"CLAUDE.md", "AGENTS.md"} {
		path := filepath.Join(p.project, name)
		if err := m.removeFrom(path, func(b []byte) ([]byte, bool, error) {
			s, changed := claudecode.UninstallNotes(string(b))
			return []byte(s), changed, nil
		}, "agent notes"); err != nil {
			return err
		}
	}
	return nil
}

// claudePaths are the files install edits.
type claudePaths struct {
	project       string // the project folder (for --user: the current one)
	settings, mcp string
}

// local returns the project's settings file that is the user's own.
func (p claudePaths) local() string {
	return filepath.Join(p.project, ".claude", claudecode.LocalSettingsFile)
}

// permissions returns the settings file that gets the permission to run
// cairn's commands: the person's own, settings.local.json in a project
// (beside the MCP server's approval), else their user settings.
func (p claudePaths) permissions(user bool) string {
	if user {
		return p.settings
	}
	return p.local()
}

// notes returns the file agent notes go to: CLAUDE.md, unless the project
// has AGENTS.md and no CLAUDE.md.
func (p claudePaths) notes() string {
	claude, agents := filepath.Join(p.project, "CLAUDE.md"), filepath.Join(p.project, "AGENTS.md")
	if _, err := os.Stat(claude); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(agents); err == nil {
			return agents
		}
	}
	return claude
}

func (m *Main) claudePaths(user bool) (claudePaths, error) {
	wd, err := m.Getwd()
	if err != nil {
		return claudePaths{}, err
	}
	project := wd
	if root, ok := workspace.Find(wd); ok {
		project = root
	}
	if !user {
		return claudePaths{project: project, settings: filepath.Join(project, ".claude", "settings.json"),
			mcp: filepath.Join(project, ".mcp.json")}, nil
	}
	home := m.Getenv("HOME")
	if home == "" {
		if home, err = os.UserHomeDir(); err != nil {
			return claudePaths{}, err
		}
	}
	return claudePaths{project: project, settings: filepath.Join(home, ".claude", "settings.json"),
		mcp: filepath.Join(home, ".claude.json")}, nil
}

// maxSettings bounds a client's settings file cairn edits (~/.claude.json
// keeps the client's history of projects: megabytes).
const maxSettings = 256 << 20

// readSettings reads a client's settings file under the read rule
// ([readrule.ReadFile]): followed where its links lead (the person's own
// dotfiles often are links), but a regular file only, never a FIFO
// waited on or a device read without end, and bounded.
func readSettings(path string) ([]byte, error) {
	data, err := readrule.ReadFile(path, nil, maxSettings)
	if errors.Is(err, readrule.ErrRefused) {
		return nil, fmt.Errorf("%s: not edited: %s", path, strings.TrimPrefix(err.Error(), readrule.ErrRefused.Error()+": "))
	}
	return data, err
}

// editFile applies edit to the file at path (missing: empty) and writes
// it back atomically if that changed anything, saying what it did.
func (m *Main) editFile(path string, edit func([]byte) ([]byte, bool, error), what string) error {
	data, err := readSettings(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	out, changed, err := edit(data)
	if err != nil {
		return fmt.Errorf("%s: %s", path, errorText(err))
	}
	if !changed {
		fmt.Fprintf(m.Stdout, "%s: %s already installed.\n", m.rel(path), what)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := writeFileAtomic(path, out); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s: %s installed.\n", m.rel(path), what)
	return nil
}

// removeFrom applies remove to the file at path, if it exists; a file
// left empty is deleted.
func (m *Main) removeFrom(path string, remove func([]byte) ([]byte, bool, error), what string) error {
	data, err := readSettings(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	out, changed, err := remove(data)
	if err != nil {
		return fmt.Errorf("%s: %s", path, errorText(err))
	}
	if !changed {
		return nil
	}
	if len(strings.TrimSpace(string(out))) == 0 || claudecode.IsEmptyObject(out) {
		err = os.Remove(path)
	} else {
		err = writeFileAtomic(path, out)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s: %s removed.\n", m.rel(path), what)
	return nil
}

// rel returns path relative to the current folder when it is inside it.
func (m *Main) rel(path string) string {
	if wd, err := m.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
	}
	return path
}

// writeFileAtomic replaces path with data: a temporary file beside it, synced,
// then renamed, so a reader sees the old file or the new one, never half.
func writeFileAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
