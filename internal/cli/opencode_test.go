package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/opencode"
)

// runEnv runs cairn with args and the environment env (nothing else) and
// returns its stdout, stderr and error.
func runEnv(tb testing.TB, env map[string]string, args ...string) (string, string, error) {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	m := NewMain(strings.NewReader(""), &stdout, &stderr)
	m.Getenv = func(k string) string { return env[k] }
	err := m.Run(context.Background(), args)
	return stdout.String(), stderr.String(), err
}

// TestOpencodeCLI drives the commands over a copy of the store the real
// opencode 1.18.33 wrote: import with no PATH finds opencode's data folder
// and keeps its logs beside the store; sessions, rounds and search read the
// session; revive writes a session into opencode's store (its own harness
// by default) that the next import finds as a child; --to claude and --to
// codex cross its calls.
func TestOpencodeCLI(t *testing.T) {
	root := t.TempDir()
	data := opencodeData(t, root)
	store := filepath.Join(root, ".cairn", "cairn.db")
	env := map[string]string{"HOME": root, "XDG_DATA_HOME": filepath.Join(root, "data"), "CAIRN_STORE": store,
		"CODEX_HOME": filepath.Join(root, ".codex")}
	run := func(args ...string) string {
		t.Helper()
		out, errOut, err := runEnv(t, env, args...)
		if err != nil {
			t.Fatalf("cairn %v: %v\n%s%s", args, err, out, errOut)
		}
		return out
	}
	if out := run("import"); !strings.HasPrefix(out, "1 file (1 new, 0 appended, 0 unchanged, 0 rewritten, 0 failed): 30 lines read, 30 stored") {
		t.Fatalf("import: %s", out)
	}
	logs, _ := filepath.Glob(filepath.Join(root, ".cairn", "opencode", "ses_*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("logs beside the store: %v", logs)
	}
	if out := run("import"); !strings.HasPrefix(out, "1 file (0 new, 0 appended, 1 unchanged") {
		t.Fatalf("second import: %s", out)
	}
	id := strings.TrimSuffix(filepath.Base(logs[0]), ".jsonl")
	if out := run("import", "-q", "--session", id, data); !strings.HasPrefix(out, "1 file (0 new, 0 appended, 1 unchanged") {
		t.Fatalf("import --session: %s", out)
	}
	if _, _, err := runEnv(t, env, "import", "--session", "ses_nosuch", data); err == nil || !strings.Contains(err.Error(), "No session ses_nosuch") {
		t.Fatalf("import --session of a session opencode does not have: %v", err)
	}
	if out := run("sessions", "--agent", "opencode"); !strings.Contains(out, id+"  opencode  ") {
		t.Fatalf("sessions: %s", out)
	}
	if out := run("rounds", id); !strings.Contains(out, "| 002 |") || !strings.Contains(out, "FIXED-NOTES") {
		t.Fatalf("rounds: %s", out)
	}
	if out := run("search", "gamma"); !strings.Contains(out, id+"  2.") {
		t.Fatalf("search: %s", out)
	}

	out := run("revive", id)
	re := regexp.MustCompile(`resume: cd \S+ && opencode --session (ses_\w+)`)
	m := re.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "revive: wrote "+filepath.Join(data, opencode.DBName)) {
		t.Fatalf("revive: %s", out)
	}
	stored, err := opencode.ReadStore(context.Background(), data)
	if err != nil || len(stored) != 2 || stored[1].ID != m[1] {
		t.Fatalf("opencode's store after revive: %v, %d sessions", err, len(stored))
	}
	if out := run("sessions", "--surgical", "--agent", "opencode"); !strings.Contains(out, m[1]+"  opencode  ") {
		t.Fatalf("the revived session is not registered: %s", out)
	}

	out = run("revive", "--to", "claude", id)
	if !strings.Contains(out, "crossed from opencode: 4 tool calls mapped, 0 as text, 0 thinking blocks dropped") {
		t.Fatalf("revive --to claude: %s", out)
	}
	out = run("revive", "--to", "codex", id)
	if !strings.Contains(out, "crossed from opencode: 4 tool calls mapped, 0 as text") {
		t.Fatalf("revive --to codex: %s", out)
	}
	out = run("revive", "--to", "gemini", "--cwd", root, id)
	if !strings.Contains(out, "crossed from opencode: 4 tool calls mapped, 0 as text") {
		t.Fatalf("revive --to gemini: %s", out)
	}

	// A Gemini CLI session crosses into opencode: its shell, read, edit and
	// write calls become opencode's own, none as text.
	gem := "../../gemini/testdata/0.61.0/session-2026-11-25T19-51-2de7feb0.jsonl"
	run("import", "-q", gem)
	out = run("sessions", "--agent", "gemini")
	g := regexp.MustCompile(`(?m)^(\S+)  gemini  `).FindStringSubmatch(out)
	if g == nil {
		t.Fatalf("sessions --agent gemini: %s", out)
	}
	gid := g[1]
	out = run("compress-before", "--format", "opencode", "--cwd", root, gid, "2")
	if !strings.Contains(out, "crossed from gemini: 2 tool calls mapped, 0 as text") {
		t.Fatalf("compress-before --format opencode of a Gemini CLI session: %s", out)
	}
}
