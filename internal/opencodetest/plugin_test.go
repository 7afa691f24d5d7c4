package opencodetest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/opencodetest"
	"github.com/cairn-dev/cairn/opencode"
)

// TestPlugin installs cairn's plugin with the built cairn and has each
// release run a prompt: the plugin fires, the session is in cairn's store
// (inscribed on session.idle) and the request's system prompt holds what
// cairn prime prints. Installing again changes nothing; uninstalling
// removes the file, and the next request has no cairn text.
func TestPlugin(t *testing.T) {
	clients := opencodetest.Clients(t)
	bin := claudetest.Cairn(t)
	for _, c := range clients {
		t.Run(c.Name, func(t *testing.T) {
			r := newRig(t, c)
			cairn := func(args ...string) string {
				t.Helper()
				return r.cairn(t, bin, args...)
			}
			if out := cairn("install", "opencode", "--command", bin); !strings.Contains(out, ".opencode/plugins/cairn.js: plugin installed.") {
				t.Fatalf("install: %s", out)
			}
			if out := cairn("install", "opencode", "--command", bin); !strings.Contains(out, "plugin already installed.") {
				t.Fatalf("install again: %s", out)
			}
			before := len(r.api.Requests())
			r.home.Run(t, c.Bin, "run", "make the notes file")
			id := r.newest(t)
			if !systemHas(r, before, "# Cold start") {
				t.Error("the system prompt lacks cairn prime's text: the plugin did not fire")
			}
			if out := cairn("sessions", "--agent", "opencode"); !strings.Contains(out, id) {
				t.Errorf("the session was not inscribed on session.idle:\n%s", out)
			}
			if out := cairn("uninstall", "opencode"); !strings.Contains(out, "plugin removed.") {
				t.Fatalf("uninstall: %s", out)
			}
			if _, err := os.Stat(opencode.PluginPath(r.home.Cwd)); !os.IsNotExist(err) {
				t.Fatalf("the plugin file is still there: %v", err)
			}
			before = len(r.api.Requests())
			r.home.Run(t, c.Bin, "run", "--session", id, "fix the notes")
			if systemHas(r, before, "# Cold start") {
				t.Error("the system prompt still holds cairn's text after uninstall")
			}
		})
	}
}

// systemHas reports whether a conversation request after the first
// before holds text in its system messages.
func systemHas(r *rig, before int, text string) bool {
	for _, req := range r.api.ChatRequests()[min(before, len(r.api.ChatRequests())):] {
		for _, m := range req.Messages {
			if m.Role == "system" && strings.Contains(m.Text(), text) && len(req.Tools) > 0 {
				return true
			}
		}
	}
	return false
}
