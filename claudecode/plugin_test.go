package claudecode_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/claudecode"
)

// pluginDir is the repository's Claude Code plugin (.claude-plugin/).
var pluginDir = filepath.Join("..", ".claude-plugin", "cairn")

// TestPlugin_SameAsInstall: the plugin's hooks and MCP server are what
// `cairn install claude` writes, the hooks through the plugin's guard
// script; a change to one without the other fails here.
func TestPlugin_SameAsInstall(t *testing.T) {
	hooks, _, err := claudecode.InstallHooks(nil, `"${CLAUDE_PLUGIN_ROOT}/hooks/cairn"`)
	if err != nil {
		t.Fatal(err)
	}
	mcp, _, err := claudecode.InstallMCP(nil, "cairn")
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string][]byte{"hooks/hooks.json": hooks, ".mcp.json": mcp} {
		got, err := os.ReadFile(filepath.Join(pluginDir, file))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is not what install writes; want:\n%s", file, want)
		}
	}
}

// TestPlugin_NoCairn: without cairn on PATH the plugin's hook says how to
// install it at session start (a systemMessage the person sees), says
// nothing at any other event, and never fails.
func TestPlugin_NoCairn(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, event := range claudecode.HookEvents {
		cmd := exec.Command("sh", filepath.Join(pluginDir, "hooks", "cairn"), "hook", event)
		cmd.Env = []string{"PATH=" + t.TempDir()}
		cmd.Stdin = strings.NewReader(`{"hook_event_name":"` + event + `"}`)
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: %v", event, err)
		}
		if event != claudecode.SessionStart {
			if len(out) != 0 {
				t.Errorf("%s printed %q", event, out)
			}
			continue
		}
		var msg struct{ SystemMessage string }
		if err := json.Unmarshal(out, &msg); err != nil || !strings.Contains(msg.SystemMessage, "npm install -g @cairn/cairn") {
			t.Errorf("SessionStart printed %q (%v)", out, err)
		}
	}
}

// TestPlugin_StandsAside: where "cairn install claude" put its hooks in the
// project's settings, the plugin's hooks do not run cairn a second time.
func TestPlugin_StandsAside(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	proj, bin := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	os.WriteFile(filepath.Join(bin, "cairn"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	run := func() bool {
		os.Remove(marker)
		cmd := exec.Command("sh", filepath.Join(pluginDir, "hooks", "cairn"), "hook", "Stop")
		cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + t.TempDir(), "CLAUDE_PROJECT_DIR=" + proj}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		_, err := os.Stat(marker)
		return err == nil
	}
	if !run() {
		t.Fatal("the plugin's hook did not run cairn")
	}
	settings, _, _ := claudecode.InstallHooks(nil, "cairn")
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), settings, 0o644)
	if run() {
		t.Fatal("the plugin's hook ran cairn beside install's hooks")
	}
}

func TestPluginEnabled(t *testing.T) {
	for settings, want := range map[string]string{
		`{"enabledPlugins": {"cairn@cairn": true}}`:             "cairn@cairn",
		`{"enabledPlugins": {"cairn@acme": true, "x@y": true}}`: "cairn@acme",
		`{"enabledPlugins": {"cairn@cairn": false}}`:            "",
		`{"enabledPlugins": {"cairnish@cairn": true}}`:          "",
		`{}`: "",
		``:   "",
	} {
		if got := claudecode.PluginEnabled([]byte(settings)); got != want {
			t.Errorf("%s: %q, want %q", settings, got, want)
		}
	}
}
