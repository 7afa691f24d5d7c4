package claudetest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestRevivedCarriesNoStaleNotes (issue #42, 2c): a session told by
// cairn's hooks that its context crossed a pressure mark, revived, and
// resumed by the real client: the revived session's requests hold none of
// the notes the hooks gave its parent (its percentage, a command aimed at
// the parent), which stay in the store.
func TestRevivedCarriesNoStaleNotes(t *testing.T) {
	for name, bin := range claudetest.Versions(t) {
		t.Run(name, func(t *testing.T) { revivedCarriesNoStaleNotes(t, bin) })
	}
}

func revivedCarriesNoStaleNotes(t *testing.T, bin string) {
	cairnBin := MustBuildCairn(t)
	api := fakeapi.New()
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude", "--pressure", "50")
	f, err := os.OpenFile(filepath.Join(proj, ".cairn", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("context_window = 1000\n") // a reply of 600 input tokens crosses 50 %
	f.Close()

	api.SetInputTokens(10)
	first := claudetest.Run(t, bin, home, proj, api.URL, "-p", "the first prompt")
	api.SetInputTokens(600)
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "the second prompt")
	api.SetInputTokens(10)
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "the third prompt")
	if requestsWith(api.Requests(), "your context is") == 0 {
		t.Fatal("the parent was never told its context crossed the mark")
	}

	// The revived session goes where the client looks: under the scratch
	// home, never the real one.
	cmd := exec.Command(cairnBin, "revive", first.SessionID)
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR=", "CAIRN_SESSION=", "CLAUDE_CODE_SESSION_ID=", "CAIRN_AGENT=")
	outb, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cairn revive: %v\n%s", err, outb)
	}
	out := string(outb)
	id := regexp.MustCompile(`claude --resume ([0-9a-f-]{36})`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("revive names no session to resume:\n%s", out)
	}
	// The revived session is measured against the client's own window
	// again: a few percent of it, no crossing of its own.
	config := filepath.Join(proj, ".cairn", "config")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(strings.ReplaceAll(string(data), "context_window = 1000\n", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	before := len(api.Requests())
	if r := claudetest.Run(t, bin, home, proj, api.URL, "--resume", id[1], "-p", "in the revived session"); r.IsError {
		t.Fatalf("resume: %+v", r)
	}
	var body string
	for _, r := range api.Requests()[before:] {
		if strings.Contains(r.Path, "/v1/messages") && strings.Contains(string(r.Body), "in the revived session") {
			body = string(r.Body)
		}
	}
	if body == "" {
		t.Fatal("no request of the revived session holds its prompt")
	}
	for _, stale := range []string{"your context is", "Command: cairn revive " + first.SessionID} {
		if strings.Contains(body, stale) {
			t.Errorf("the revived session is told its parent's note %q:\n%s", stale, excerpt(body, stale))
		}
	}
	if !strings.Contains(body, "the third prompt") {
		t.Errorf("the revived session lacks its parent's last prompt")
	}
}
