package geminitest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/geminitest"
)

// userSettings is a project's .gemini/settings.json before cairn: the
// user's own hook and keys, in their order and spacing.
const userSettings = `{
  "ui": {
    "theme": "GitHub"
  },
  "hooks": {
    "AfterAgent": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "echo mine >> hook-mine.log"
          }
        ]
      }
    ]
  }
}
`

// TestHooks installs cairn's hooks in a project's .gemini/settings.json
// (keeping the user's own hook and keys), has the newest real client run a
// prompt there, and checks what the hooks did: the session is inscribed
// (AfterAgent, SessionEnd), the SessionStart context reached the model, the
// user's hook ran too; installing again changes nothing, and uninstalling
// gives back the user's file byte for byte.
func TestHooks(t *testing.T) {
	c := geminitest.NewestClient(t)
	bin := mustBuildCairn(t)
	api := fakeapi.NewGemini()
	defer api.Close()
	h := geminitest.NewHome(t, api.URL)
	store := filepath.Join(t.TempDir(), "cairn.db")
	h.Env = []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"), "CAIRN_STORE=" + store}
	run := &cairnRun{bin: bin, home: h, store: store}
	settings := filepath.Join(h.Cwd, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(userSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	run.run(t, "install", "gemini")
	installed, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"theme": "GitHub"`, `echo mine >> hook-mine.log`, `cairn hook --agent gemini SessionStart`, `cairn hook --agent gemini AfterAgent`, `cairn hook --agent gemini SessionEnd`} {
		if !bytes.Contains(installed, []byte(want)) {
			t.Errorf("settings after install lack %q:\n%s", want, installed)
		}
	}
	if !json.Valid(installed) {
		t.Fatalf("settings after install are not JSON:\n%s", installed)
	}
	run.run(t, "install", "gemini")
	if again, _ := os.ReadFile(settings); !bytes.Equal(again, installed) {
		t.Errorf("installing again changed the settings:\n%s", again)
	}
	// The decision is recorded in the workspace the install made, so the
	// SessionStart context carries it.
	run.run(t, "decide", "Greetings stay lower case: hooks-e2e-marker")

	out := h.Run(t, c.Bin, "Say hello from the hooks test.")
	t.Logf("client output: %s", out)
	sessions := run.run(t, "sessions", "--agent", "gemini")
	if !strings.Contains(sessions, "Say hello from the hooks test.") {
		t.Errorf("the hooks did not inscribe the session:\n%s", sessions)
	}
	if mine, err := os.ReadFile(filepath.Join(h.Cwd, "hook-mine.log")); err != nil || !strings.Contains(string(mine), "mine") {
		t.Errorf("the user's own AfterAgent hook did not run: %q, %v", mine, err)
	}
	found := false
	for _, r := range api.ConversationRequests() {
		raw, _ := json.Marshal(r.Contents)
		if bytes.Contains(raw, []byte("hooks-e2e-marker")) {
			found = true
		}
	}
	if !found {
		t.Error("the SessionStart context (the workspace's decision) did not reach the model")
	}
	// The client hands BeforeAgent the prompt with SessionStart's context
	// before it: cairn judges the user's words, not its own lists.
	for _, r := range api.ConversationRequests() {
		raw, _ := json.Marshal(r.Contents)
		if bytes.Contains(raw, []byte("this prompt lists")) {
			t.Errorf("BeforeAgent counted the list lines of cairn's own context as tasks:\n%s", raw)
			break
		}
	}
	rounds := run.run(t, "rounds", strings.Fields(sessions[strings.Index(sessions, "\n")+1:])[0])
	if !strings.Contains(rounds, "FAKE-REPLY") {
		t.Errorf("the inscribed session lacks the answer:\n%s", rounds)
	}

	run.run(t, "uninstall", "gemini")
	if back, _ := os.ReadFile(settings); string(back) != userSettings {
		t.Errorf("uninstall did not give the user's settings back:\n%s", back)
	}
}
