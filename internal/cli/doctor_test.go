package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doctorMain returns a Main in dir with HOME dir/home and PATH path.
func doctorMain(t *testing.T, dir, path string) *Main {
	t.Helper()
	m := NewMain(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	m.Getwd = func() (string, error) { return dir, nil }
	env := map[string]string{"HOME": filepath.Join(dir, "home"), "PATH": path}
	m.Getenv = func(k string) string { return env[k] }
	return m
}

// script writes an executable shell script to dir/name.
func script(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// Each check of doctor is a problem exactly when its condition is broken.

func TestDoctor_Full(t *testing.T) {
	self := "cairn 1.2.3 (commit abc, lean build, go1.26 linux/amd64)"
	found := func() (string, error) { return "/bin/cairn-full", nil }
	runs := func(line string) func(string) (string, error) {
		return func(string) (string, error) { return line, nil }
	}
	for _, c := range []struct {
		name   string
		lean   bool
		find   func() (string, error)
		run    func(string) (string, error)
		status string
	}{
		{"full build", false, nil, nil, statusOK},
		{"pair", true, found, runs("cairn 1.2.3 (commit abc, full build, go1.26 linux/amd64)"), statusOK},
		{"missing", true, func() (string, error) { return "", errors.New("not found") }, nil, statusFail},
		{"other release", true, found, runs("cairn 1.2.2 (commit 0ff, full build, go1.26 linux/amd64)"), statusFail},
		{"does not run", true, found, func(string) (string, error) { return "", errors.New("exec format error") }, statusFail},
	} {
		if f := checkFull(self, c.lean, c.find, c.run); f.Status != c.status || (c.status == statusFail) != (f.Fix != "") {
			t.Errorf("%s: %+v, want %s", c.name, f, c.status)
		}
	}
}

func TestDoctor_OnPath(t *testing.T) {
	dir, bin := t.TempDir(), t.TempDir()
	if f := doctorMain(t, dir, bin).checkOnPath(); f.Status != statusFail || f.Fix != npmInstall {
		t.Errorf("no cairn on PATH: %+v", f)
	}
	script(t, bin, "cairn", "exit 0")
	if f := doctorMain(t, dir, bin).checkOnPath(); f.Status != statusOK || f.Detail != filepath.Join(bin, "cairn") {
		t.Errorf("cairn on PATH: %+v", f)
	}
}

func TestDoctor_Workspace(t *testing.T) {
	dir := t.TempDir()
	if f := doctorMain(t, dir, "").checkWorkspace(); f.Status != statusWarn || f.Fix != "cairn init" {
		t.Errorf("no workspace: %+v", f)
	}
	os.Mkdir(filepath.Join(dir, ".cairn"), 0o755)
	if f := doctorMain(t, dir, "").checkWorkspace(); f.Status != statusOK {
		t.Errorf("workspace: %+v", f)
	}
}

func TestDoctor_Store(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".cairn"), 0o755)
	ctx := context.Background()
	if f := doctorMain(t, dir, "").checkStore(ctx); f.Status != statusWarn {
		t.Errorf("no store: %+v", f)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cairn", "cairn.db")); err == nil {
		t.Fatal("doctor made the store")
	}
	m := doctorMain(t, dir, "")
	st, err := m.openStore("")
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if f := doctorMain(t, dir, "").checkStore(ctx); f.Status != statusOK || !strings.Contains(f.Detail, "0 sessions") {
		t.Errorf("store: %+v", f)
	}
	os.Remove(filepath.Join(dir, ".cairn", "cairn.db-wal"))
	os.Remove(filepath.Join(dir, ".cairn", "cairn.db-shm"))
	if err := os.WriteFile(filepath.Join(dir, ".cairn", "cairn.db"), bytes.Repeat([]byte("not a database "), 512), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := doctorMain(t, dir, "").checkStore(ctx); f.Status != statusFail || f.Fix == "" {
		t.Errorf("garbage store: %+v", f)
	}
}

func TestDoctor_Claude(t *testing.T) {
	dir := t.TempDir()
	m := doctorMain(t, dir, "")
	if err := m.Run(context.Background(), []string{"install", "claude"}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "home", ".claude", "projects"), 0o755)
	status := func() map[string]finding {
		got := map[string]finding{}
		for _, f := range doctorMain(t, dir, "").checkClaude() {
			got[f.Check] = f
		}
		return got
	}
	for check, f := range status() {
		if check != "claude" && f.Status != statusOK {
			t.Errorf("installed: %+v", f)
		}
	}
	// Each piece broken on its own is named, with install as the fix.
	for _, c := range []struct{ check, file, remove string }{
		{"claude hooks", ".claude/settings.json", `"cairn hook Stop"`},
		{"claude status line", ".claude/settings.json", `"statusLine"`},
		{"claude MCP server", ".mcp.json", `"mcp"`},
		{"claude permissions", ".claude/settings.local.json", `"Bash(cairn:*)"`},
	} {
		path := filepath.Join(dir, c.file)
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, bytes.Replace(orig, []byte(c.remove), []byte(`"other"`), 1), 0o644)
		if f := status()[c.check]; f.Status != statusWarn || f.Fix != "cairn install claude" {
			t.Errorf("%s broken: %+v", c.check, f)
		}
		os.WriteFile(path, orig, 0o644)
	}
	// With cairn's plugin enabled, its hooks and server are the plugin's.
	os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte("{}"), 0o644)
	os.Remove(filepath.Join(dir, ".mcp.json"))
	os.WriteFile(filepath.Join(dir, "home", ".claude", "settings.json"), []byte(`{"enabledPlugins": {"cairn@cairn": true}}`), 0o644)
	for _, check := range []string{"claude hooks", "claude MCP server"} {
		if f := status()[check]; f.Status != statusOK || f.Detail != "the cairn@cairn plugin" {
			t.Errorf("plugin enabled: %+v", f)
		}
	}
	// The status line is install's still: a plugin cannot set one.
	if f := status()["claude status line"]; f.Status != statusWarn || !strings.Contains(f.Detail, "plugin cannot set it") || f.Fix != "cairn install claude" {
		t.Errorf("plugin enabled, no status line: %+v", f)
	}
	if os.Getuid() != 0 {
		projects := filepath.Join(dir, "home", ".claude", "projects")
		os.Chmod(projects, 0)
		defer os.Chmod(projects, 0o755)
		if f := status()["claude sessions"]; f.Status != statusFail {
			t.Errorf("unreadable session folder: %+v", f)
		}
	}
}

func TestDoctor_ClientVersion(t *testing.T) {
	dir, bin := t.TempDir(), t.TempDir()
	if f := doctorMain(t, dir, bin).clientVersion("claude", "Claude Code"); f.Status != statusNone {
		t.Errorf("no client: %+v", f)
	}
	script(t, bin, "claude", `echo "2.1.330 (Claude Code)"`)
	if f := doctorMain(t, dir, bin).clientVersion("claude", "Claude Code"); f.Status != statusOK || !strings.Contains(f.Detail, "2.1.330") {
		t.Errorf("client: %+v", f)
	}
	script(t, bin, "pi", `echo 0.73.1 >&2`)
	if f := doctorMain(t, dir, bin).clientVersion("pi", "pi"); f.Status != statusOK || !strings.Contains(f.Detail, "pi 0.73.1 (") {
		t.Errorf("a version on stderr: %+v", f)
	}
	script(t, bin, "claude", "exit 3")
	if f := doctorMain(t, dir, bin).clientVersion("claude", "Claude Code"); f.Status != statusFail {
		t.Errorf("broken client: %+v", f)
	}
}

func TestDoctor_HookRuns(t *testing.T) {
	dir, bin := t.TempDir(), t.TempDir()
	if f := doctorMain(t, dir, bin).checkHookRuns(); f.Status != statusNone {
		t.Errorf("no cairn on PATH: %+v", f)
	}
	script(t, bin, "cairn", `[ "$1 $2" = "hook UserPromptSubmit" ] && exit 0; exit 9`)
	if f := doctorMain(t, dir, bin).checkHookRuns(); f.Status != statusOK || !strings.Contains(f.Detail, "exit 0 in") {
		t.Errorf("a hook that runs: %+v", f)
	}
	script(t, bin, "cairn", "echo broken >&2; exit 1")
	if f := doctorMain(t, dir, bin).checkHookRuns(); f.Status != statusFail || !strings.Contains(f.Detail, "broken") {
		t.Errorf("a hook that fails: %+v", f)
	}
}
