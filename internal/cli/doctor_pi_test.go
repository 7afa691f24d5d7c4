package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/pi"
)

// piFindings runs doctor's pi checks in dir with env, by check.
func piFindings(t *testing.T, dir string, env map[string]string) map[string]finding {
	t.Helper()
	m := NewMain(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	m.Getwd = func() (string, error) { return dir, nil }
	m.Getenv = func(k string) string { return env[k] }
	got := map[string]finding{}
	for _, f := range m.checkPi(context.Background()) {
		got[f.Check] = f
	}
	return got
}

// Each of pi's checks is a problem exactly when its condition is broken:
// pi on PATH, cairn's extension where pi loads it from (the folder pi
// starts in, its agent folder), and the extension's command answering a
// compaction. The test binary is cairn on PATH (TestMain).
func TestDoctor_Pi(t *testing.T) {
	dir, bin := t.TempDir(), t.TempDir()
	home := filepath.Join(dir, "home")
	env := map[string]string{"HOME": home, "PATH": bin}
	if got := piFindings(t, dir, env); len(got) != 1 || got["pi"].Status != statusNone {
		t.Errorf("no pi, no extension: %+v", got)
	}
	script(t, bin, "pi", "echo 0.73.1")
	got := piFindings(t, dir, env)
	if f := got["pi extension"]; got["pi"].Status != statusOK || f.Status != statusWarn || f.Fix != "cairn install pi" {
		t.Errorf("pi without the extension: %+v", got)
	}
	if _, ok := got["pi hook runs"]; ok {
		t.Errorf("hook run without an extension: %+v", got)
	}

	env["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
	m := doctorMain(t, dir, env["PATH"])
	if err := m.Run(context.Background(), []string{"install", "pi"}); err != nil {
		t.Fatal(err)
	}
	got = piFindings(t, dir, env)
	if f := got["pi extension"]; f.Status != statusOK || !strings.Contains(f.Detail, "runs cairn") {
		t.Errorf("installed: %+v", f)
	}
	if f := got["pi hook runs"]; f.Status != statusOK || !strings.Contains(f.Detail, "summary") {
		t.Errorf("installed, cairn on PATH: %+v", f)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cairn", "cairn.db")); err == nil {
		t.Error("the probe wrote the workspace's store")
	}

	ext := pi.ExtensionPath(dir)
	orig, _ := os.ReadFile(ext)
	os.WriteFile(ext, append(orig, "// edited\n"...), 0o644)
	if f := piFindings(t, dir, env)["pi extension"]; f.Status != statusWarn || f.Fix != "cairn install pi" {
		t.Errorf("an extension cairn did not write: %+v", f)
	}

	for _, c := range []struct{ name, body string }{
		{"fails", "echo broken >&2; exit 1"},
		{"answers no compaction", "echo '{}'"},
	} {
		script(t, bin, "cairn-"+c.name[:4], c.body)
		os.WriteFile(ext, pi.Extension(filepath.Join(bin, "cairn-"+c.name[:4])), 0o644)
		if f := piFindings(t, dir, env)["pi hook runs"]; f.Status != statusFail || f.Fix == "" {
			t.Errorf("a command that %s: %+v", c.name, f)
		}
	}
	os.WriteFile(ext, pi.Extension("no-such-cairn"), 0o644)
	if f := piFindings(t, dir, env)["pi hook runs"]; f.Status != statusFail || !strings.Contains(f.Detail, "not found on PATH") {
		t.Errorf("a command not on PATH: %+v", f)
	}

	// pi loads the folder it starts in, not the workspace's root.
	os.WriteFile(ext, pi.Extension("cairn"), 0o644)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	if f := piFindings(t, sub, env)["pi extension"]; f.Status != statusWarn || f.Fix != "cd "+dir {
		t.Errorf("started in a subfolder: %+v", f)
	}

	// The agent folder's extension: ~/.pi/agent, or $PI_CODING_AGENT_DIR.
	os.Remove(ext)
	for _, agent := range []string{filepath.Join(home, ".pi", "agent"), filepath.Join(dir, "agent")} {
		if agent != filepath.Join(home, ".pi", "agent") {
			env["PI_CODING_AGENT_DIR"] = agent
		}
		user := filepath.Join(agent, "extensions", "cairn.ts")
		os.MkdirAll(filepath.Dir(user), 0o755)
		os.WriteFile(user, pi.Extension("cairn"), 0o644)
		rel, _ := filepath.Rel(dir, user)
		if f := piFindings(t, dir, env)["pi extension"]; f.Status != statusOK || !strings.HasPrefix(f.Detail, rel+" ") {
			t.Errorf("in %s: %+v", agent, f)
		}
		os.WriteFile(user, []byte("// an older cairn's\n"), 0o644)
		if f := piFindings(t, dir, env)["pi extension"]; f.Status != statusWarn || f.Fix != "cairn install pi --user" {
			t.Errorf("an older extension in %s: %+v", agent, f)
		}
		os.Remove(user)
	}
	delete(env, "PI_CODING_AGENT_DIR")
	if err := doctorMain(t, dir, env["PATH"]).Run(context.Background(), []string{"install", "pi", "--user"}); err != nil {
		t.Fatal(err)
	}
	if got := piFindings(t, dir, env); got["pi extension"].Status != statusOK || got["pi hook runs"].Status != statusOK {
		t.Errorf("install pi --user: %+v", got)
	}
}
