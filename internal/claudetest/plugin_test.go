package claudetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestPlugin installs the repository's Claude Code plugin with the real
// client, offline, in a scratch home: `claude plugin validate` passes for
// the marketplace and the plugin, `plugin marketplace add` of a copy of
// .claude-plugin and `plugin install cairn@cairn` succeed, a session fires
// cairn's hooks (the SessionStart context reaches the API, Stop inscribes
// the session into the store), `plugin details` reports its 10 hooks, its
// server and its token cost, a session with no cairn on PATH still
// answers, and `plugin uninstall` leaves the settings as they were (but
// for the empty "enabledPlugins" the client leaves).
func TestPlugin(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			if _, err := pluginCmd(t, c.Path, t.TempDir(), "", "plugin", "validate", "--help"); err != nil {
				t.Skipf("claude %s has no plugin validate: %v", c.Version, err)
			}
			plugin(t, c.Path, cairnBin)
		})
	}
}

func plugin(t *testing.T, bin, cairnBin string) {
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(file), "..", "..")
	home, proj, market := claudetest.ScratchDir(t), claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	for _, dir := range []string{repo, filepath.Join(repo, ".claude-plugin", "cairn")} {
		if out, err := pluginCmd(t, bin, home, "", "plugin", "validate", dir); err != nil || !strings.Contains(out, "Validation passed") {
			t.Fatalf("plugin validate %s: %v\n%s", dir, err, out)
		}
	}
	if err := os.CopyFS(filepath.Join(market, ".claude-plugin"), os.DirFS(filepath.Join(repo, ".claude-plugin"))); err != nil {
		t.Fatal(err)
	}
	mustPlugin(t, bin, home, "plugin", "marketplace", "add", market)
	settings := filepath.Join(home, ".claude", "settings.json")
	before, _ := os.ReadFile(settings)
	if out := mustPlugin(t, bin, home, "plugin", "install", "cairn@cairn"); !strings.Contains(out, "installed") {
		t.Fatalf("plugin install: %s", out)
	}

	api := fakeapi.New()
	defer api.Close()
	mustCairn(t, cairnBin, proj, "init")
	r := claudetest.Run(t, bin, home, proj, api.URL, "-p", "the first prompt")
	if r.IsError {
		t.Fatalf("run: %+v", r)
	}
	if requestsWith(api.Requests(), `<relay name=\"cairn prime\">`) == 0 {
		t.Error("no request holds cairn's SessionStart context")
	}
	if out := mustCairn(t, cairnBin, proj, "sessions"); !strings.Contains(out, r.SessionID[:8]) {
		t.Errorf("the Stop hook did not inscribe %s: cairn sessions printed\n%s", r.SessionID, out)
	}

	pluginCommands(t, bin, cairnBin, home, proj, api, r.SessionID)

	out := mustPlugin(t, bin, home, "plugin", "details", "cairn")
	for _, want := range []string{"Hooks (10)", "MCP servers (1)", "Projected token cost"} {
		if !strings.Contains(out, want) {
			t.Errorf("plugin details lacks %q:\n%s", want, out)
		}
	}
	t.Logf("plugin details:\n%s", out)

	// No cairn on PATH: the hooks say nothing that fails the prompt.
	bare := claudetest.RunEnv(t, []string{"PATH=/usr/bin:/bin"}, bin, home, claudetest.ScratchDir(t), api.URL, "-p", "a prompt without cairn")
	if bare.IsError || bare.Result != fakeapi.DefaultReply {
		t.Errorf("without cairn on PATH: %+v", bare)
	}

	mustPlugin(t, bin, home, "plugin", "uninstall", "cairn@cairn")
	after, _ := os.ReadFile(settings)
	if a, b := settingsKeys(t, after), settingsKeys(t, before); a != b {
		t.Errorf("settings.json after uninstall:\n%s\nbefore install:\n%s", after, before)
	}
}

// pluginCommands checks the plugin's slash commands with the client: the
// init event lists them, and each, typed in print mode in the session the
// hooks inscribed (--resume), runs cairn's command and puts its output in
// the prompt the API receives: /cairn:status the workspace's state (also
// in a workspace with no store yet), /cairn:search the session that said
// the words, /cairn:revive this session's (${CLAUDE_SESSION_ID}) revive,
// with the command that resumes it.
func pluginCommands(t *testing.T, bin, cairnBin, home, proj string, api *fakeapi.Server, session string) {
	t.Helper()
	listing := claudetest.Run(t, bin, home, proj, api.URL, "-p", "list the commands", "--output-format", "stream-json", "--verbose")
	var listed []string
	for _, line := range bytes.Split(listing.Stdout, []byte("\n")) {
		var ev struct {
			Type, Subtype string
			SlashCommands []string `json:"slash_commands"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == "system" && ev.Subtype == "init" {
			listed = ev.SlashCommands
		}
	}
	for _, want := range []string{"cairn:status", "cairn:search", "cairn:revive"} {
		if !slices.Contains(listed, want) {
			t.Errorf("the init event lists no %s: %v", want, listed)
		}
	}
	// A workspace with no store yet: status says the state all the same.
	fresh := claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, fresh, "init")
	before := len(api.Requests())
	if r := claudetest.Run(t, bin, home, fresh, api.URL, "-p", "/cairn:status"); r.IsError || requestsWith(api.Requests()[before:], "Phase:") == 0 {
		t.Errorf("/cairn:status in a workspace with no store: %+v", r.Result)
	}
	for _, c := range []struct{ prompt, want string }{
		{"/cairn:status", "Phase:"},
		{"/cairn:search the first prompt", session[:8]},
		{"/cairn:revive", "claude --resume "},
	} {
		before := len(api.Requests())
		r := claudetest.Run(t, bin, home, proj, api.URL, "-p", c.prompt, "--resume", session)
		if r.IsError {
			t.Errorf("%s: %+v", c.prompt, r)
			continue
		}
		if requestsWith(api.Requests()[before:], c.want) == 0 {
			t.Errorf("%s: no request holds %q (its cairn command's output)", c.prompt, c.want)
		}
	}
}

// settingsKeys returns a settings file's members, compacted, but for those
// the client leaves empty ("enabledPlugins": {} after the last uninstall).
func settingsKeys(t *testing.T, data []byte) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("settings.json: %v\n%s", err, data)
	}
	for k, v := range m {
		if s := string(bytes.TrimSpace(v)); s == "{}" || s == "[]" {
			delete(m, k)
		}
	}
	out, _ := json.Marshal(m)
	return string(out)
}

func mustPlugin(t *testing.T, bin, home string, args ...string) string {
	t.Helper()
	out, err := pluginCmd(t, bin, home, "", args...)
	if err != nil {
		t.Fatalf("claude %v: %v\n%s", args, err, out)
	}
	return out
}

// pluginCmd runs the client's plugin command offline in home.
func pluginCmd(t *testing.T, bin, home, dir string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "TERM=dumb",
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}
