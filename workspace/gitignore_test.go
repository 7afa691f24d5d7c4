package workspace_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/workspace"
)

// TestInit_GitIgnore asks git itself which files of a workspace init's
// .gitignore keeps out: the store, the lock, every session's state under
// .cairn/ and the person's own Claude Code settings (where install writes
// approvals and permissions) are ignored; the relay files, traces, the
// engagement, the config and the project's shared settings are not. A
// .gitignore an older init wrote gets the new lines.
func TestInit_GitIgnore(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	ignored := []string{
		".cairn/cairn.db", ".cairn/cairn.db-wal", ".cairn/lock", ".cairn/last-sync.json",
		".cairn/pressure/S1", ".cairn/window/S1", ".cairn/window/model-claude-opus-5-5",
		".cairn/revived/S1", ".cairn/sessions/S1.json", ".cairn/given/S1",
		".cairn/context/S1.exhausted", ".cairn/suggest/f1.json",
		".claude/settings.local.json",
	}
	kept := []string{
		"PROJECT.md", "state.json", "decisions.md", "todos.json", "board.md",
		".cairn/traces/S1.md", ".cairn/engagement.md", ".cairn/config",
		".claude/settings.json", ".mcp.json",
	}
	for _, c := range []struct{ name, before string }{
		{"new", ""},
		{"older init", "node_modules/\n# cairn: the store and its lock (relay files, boards and traces belong in git)\n.cairn/cairn.db*\n.cairn/lock\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if c.before != "" {
				writeFile(t, filepath.Join(root, ".gitignore"), c.before)
			}
			if _, err := workspace.New(root).Init(); err != nil {
				t.Fatal(err)
			}
			git(t, root, "init", "-q")
			for _, path := range ignored {
				if !checkIgnore(t, root, path) {
					t.Errorf("%s is not ignored", path)
				}
			}
			for _, path := range kept {
				if checkIgnore(t, root, path) {
					t.Errorf("%s is ignored", path)
				}
			}
		})
	}
}

// checkIgnore reports whether git ignores path (which need not exist) in
// the repository at root.
func checkIgnore(t *testing.T, root, path string) bool {
	t.Helper()
	cmd := exec.Command("git", "check-ignore", "-q", "--no-index", path)
	cmd.Dir = root
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return false
	}
	t.Fatalf("git check-ignore %s: %v", path, err)
	return false
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
