package opencodetest_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/opencodetest"
	"github.com/cairn-dev/cairn/internal/term"
)

// Two prompts a person types, the stand-in's answers, and a decision in
// the workspace that cairn's start context carries.
const (
	firstPrompt  = "This is the first typed prompt."
	firstAnswer  = "ANSWER-ONE from the stand-in"
	secondPrompt = "This is the second typed prompt."
	secondAnswer = "ANSWER-TWO from the stand-in"
	startMarker  = "interactive-start-marker"
)

// TestInteractive runs each release's full-screen interface in a
// pseudo-terminal, in a project where cairn is installed as a user
// installs it (`cairn install opencode`: the plugin, cairn on PATH),
// types two prompts and Ctrl-C; the stand-in reports 150,000 tokens a
// reply, 78 % of opencode's compaction point. The second prompt's request
// carries cairn's start context (the cold start in the system prompt, with
// the workspace's decision) and the pressure note before the first
// prompt, its answer and the second prompt; cairn's store holds the
// session's two rounds after it (the loop's turn end on session.idle); the
// screen shows each prompt with its answer, in order, and the person
// cairn's figure (a toast: opencode's own shows 75 % of the window).
func TestInteractive(t *testing.T) {
	clients := opencodetest.Clients(t)
	bin := claudetest.Cairn(t)
	for _, c := range clients {
		t.Run(c.Name, func(t *testing.T) {
			api := fakeapi.NewChat(
				fakeapi.ResponsesTurn{Match: "first typed prompt", Steps: [][]fakeapi.Item{{{Type: "message", Text: firstAnswer}}}},
				fakeapi.ResponsesTurn{Match: "second typed prompt", Steps: [][]fakeapi.Item{{{Type: "message", Text: secondAnswer}}}},
			)
			defer api.Close()
			api.SetUsage(func(int) int { return 150_000 }) // 78 % of opencode's compaction point, 192,000
			h := opencodetest.NewHome(t, api.URL)
			env := []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
				"CAIRN_STORE=" + filepath.Join(t.TempDir(), "cairn.db")}
			for _, e := range h.Env() {
				if !strings.HasPrefix(e, "TERM=") && !strings.HasPrefix(e, "NO_COLOR=") && !strings.HasPrefix(e, "PATH=") {
					env = append(env, e)
				}
			}
			cairn := func(args ...string) string {
				t.Helper()
				cmd := exec.Command(bin, args...)
				cmd.Dir, cmd.Env = h.Cwd, env
				var out, errOut bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errOut
				if err := cmd.Run(); err != nil {
					t.Fatalf("cairn %v: %v\n%s%s", args, err, out.Bytes(), errOut.Bytes())
				}
				return out.String()
			}
			cairn("install", "opencode")
			offlineDeps(t, h.Cwd)
			cairn("decide", "Greetings stay lower case: "+startMarker)

			began := time.Now()
			tm := term.Start(t, term.Command{Path: c.Bin, Dir: h.Cwd, Env: env, Quit: []string{"\x03"}})
			ready := func(l string) bool { return strings.Contains(l, "Build") && strings.Contains(l, "Fake Model") }
			for _, p := range [][2]string{{firstPrompt, firstAnswer}, {secondPrompt, secondAnswer}} {
				tm.Ask(ready, p[0], p[1], 2*time.Minute)
				t.Logf("%q answered at %v", p[0], time.Since(began).Round(time.Millisecond))
			}
			screen := tm.Screen()
			tm.Close()
			if ok, err := tm.Exited(time.Second); !ok || err != nil {
				t.Errorf("Ctrl-C did not end the client: %v, %v", ok, err)
			}
			t.Logf("%s %s: two prompts and Ctrl-C in %v; the screen before it:\n%s", c.Name, c.Version, time.Since(began).Round(time.Millisecond), screen)

			if miss := term.InOrder(screen, firstPrompt, firstAnswer, secondPrompt, secondAnswer); miss != "" {
				t.Errorf("the screen does not show %q in its place", miss)
			}
			if !strings.Contains(screen, "78%") {
				t.Errorf("the screen does not show the person cairn's pressure figure (a toast)")
			}

			var last *fakeapi.ChatRequest
			for _, r := range api.ChatRequests() {
				if len(r.Tools) > 0 {
					last = &r
				}
			}
			if last == nil {
				t.Fatal("no conversation request reached the stand-in")
			}
			var texts []string
			marked := 0
			for _, m := range last.Messages {
				texts = append(texts, m.Role+": "+m.Text())
				if strings.Contains(m.Text(), startMarker) {
					marked++
				}
			}
			flat := strings.Join(texts, "\n")
			if marked != 1 {
				t.Errorf("cairn's start context is in %d messages of the second prompt's request, want 1:\n%.3000s", marked, flat)
			}
			if miss := term.InOrder(flat, "system: ", "# Cold start", startMarker, "cairn: your context is 78% of the way to where opencode compacts it", "user: "+firstPrompt, "assistant: "+firstAnswer, "user: "+secondPrompt); miss != "" {
				t.Errorf("the second prompt's request lacks %q in its place:\n%.3000s", miss, flat)
			}

			sessions := cairn("sessions", "--agent", "opencode")
			lines := strings.Split(strings.TrimSpace(sessions), "\n")
			if len(lines) != 2 {
				t.Fatalf("cairn's store does not hold the one session:\n%s", sessions)
			}
			if shown := cairn("show", strings.Fields(lines[1])[0]); term.InOrder(shown, firstPrompt, firstAnswer, secondPrompt, secondAnswer) != "" {
				t.Errorf("the stored session lacks the two rounds in order:\n%s", shown)
			}
		})
	}
}

// offlineDeps records @opencode-ai/plugin as installed in the project's
// .opencode (an empty node_modules, a package-lock naming it): opencode
// 1.18 installs it there with npm before it loads a plugin of the folder,
// which offline waits for the registry for tens of seconds. cairn's
// plugin imports nothing from it.
func offlineDeps(t *testing.T, project string) {
	t.Helper()
	dir := filepath.Join(project, ".opencode")
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	deps := `{"dependencies":{"@opencode-ai/plugin":"*"}}`
	for name, data := range map[string]string{"package.json": deps, "package-lock.json": `{"packages":{"":` + deps + `}}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
