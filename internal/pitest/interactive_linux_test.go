package pitest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/pitest"
	"github.com/cairn-dev/cairn/internal/term"
)

// Two prompts a person types, the stand-in's answers, and a line of the
// workspace's PROJECT.md that cairn's start context carries.
const (
	typedFirst        = "This is the first typed prompt."
	typedFirstAnswer  = "ANSWER-ONE from the stand-in"
	typedSecond       = "This is the second typed prompt."
	typedSecondAnswer = "ANSWER-TWO from the stand-in"
	typedMarker       = "Project marker TYPED-PI-9"
)

// TestInteractive runs pi's full-screen interface in a pseudo-terminal,
// in a project where cairn is installed as a user installs it (`cairn
// install pi`: .pi/extensions/cairn.ts, cairn on PATH), with a 20,000
// token window whose replies report 12,000 tokens, types two prompts and
// Ctrl-D. The second prompt's request carries cairn's start context once,
// in the first prompt's own message after its words, then the first
// answer and the second prompt with cairn's pressure note; cairn's store
// holds the session's two rounds after it; the screen shows the prompts
// and answers in order and, before the second prompt, what the loop tells
// the person of the pressure (the extension's notification).
func TestInteractive(t *testing.T) {
	clients := pitest.Clients(t)
	bin := buildCairn(t)
	for _, c := range clients {
		t.Run(c.Name, func(t *testing.T) {
			if c.Name == "oldest" {
				t.Skipf("pi %s has no extensions (its hooks live in .pi/hooks), so cairn's loop does not run in it: TestExtensionOldestPi", c.Version)
			}
			api := fakeapi.New(
				fakeapi.Turn{Match: "first typed prompt", Steps: [][]fakeapi.Block{{{Type: "text", Text: typedFirstAnswer}}}},
				fakeapi.Turn{Match: "second typed prompt", Steps: [][]fakeapi.Block{{{Type: "text", Text: typedSecondAnswer}}}},
			)
			defer api.Close()
			api.SetInputTokens(12_000)
			h := pitest.NewHome(t, api.URL)
			smallWindow(t, h, api.URL)
			h.Env = []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
				"CAIRN_STORE=" + filepath.Join(t.TempDir(), "cairn.db")}
			cairnIn(t, h, bin, nil, "install", "pi")
			project := filepath.Join(h.Cwd, "PROJECT.md")
			data, err := os.ReadFile(project)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(project, append(data, "\n"+typedMarker+"\n"...), 0o644); err != nil {
				t.Fatal(err)
			}

			began := time.Now()
			tm := term.Start(t, term.Command{Path: c.Bin, Args: []string{"--provider", "fake", "--model", "fake-model"}, Dir: h.Cwd,
				Env: append([]string{"HOME=" + h.Root, "PI_OFFLINE=1"}, h.Env...), Quit: []string{"\x04"}})
			ready := func(l string) bool { return strings.Contains(l, "fake-model") }
			for _, p := range [][2]string{{typedFirst, typedFirstAnswer}, {typedSecond, typedSecondAnswer}} {
				tm.Ask(ready, p[0], p[1], time.Minute)
			}
			screen := tm.Screen()
			tm.Close()
			if ok, err := tm.Exited(time.Second); !ok || err != nil {
				t.Errorf("Ctrl-D did not end the client: %v, %v", ok, err)
			}
			t.Logf("%s %s: two prompts and Ctrl-D in %v; the screen before it:\n%s", c.Name, c.Version, time.Since(began).Round(time.Millisecond), screen)

			const person, agent = "cairn: context 75% of the way to pi's compaction (12,020 of 16,000 tokens)", "75% of the way to where pi compacts it"
			if miss := term.InOrder(screen, typedFirst, typedFirstAnswer, person, typedSecond, typedSecondAnswer); miss != "" {
				t.Errorf("the screen does not show %q in its place", miss)
			}

			reqs := conversations(t, api.Requests())
			if len(reqs) == 0 {
				t.Fatal("no conversation request reached the stand-in")
			}
			last := reqs[len(reqs)-1]
			var texts []string
			for _, m := range last.Messages {
				texts = append(texts, m.Role+": "+strings.Join(m.Texts(), "\n"))
			}
			flat := strings.Join(texts, "\n")
			if at := holding(last, typedMarker); len(at) != 1 || at[0] != 0 {
				t.Errorf("cairn's start context is in messages %v of the second prompt's request, want the first only:\n%.3000s", at, flat)
			}
			if miss := term.InOrder(flat, "user: "+typedFirst, typedMarker, "assistant: "+typedFirstAnswer, "user: "+typedSecond, agent); miss != "" {
				t.Errorf("the second prompt's request lacks %q in its place:\n%.3000s", miss, flat)
			}

			sessions := string(cairnIn(t, h, bin, nil, "sessions", "--agent", "pi"))
			lines := strings.Split(strings.TrimSpace(sessions), "\n")
			if len(lines) != 2 {
				t.Fatalf("cairn's store does not hold the one session:\n%s", sessions)
			}
			if shown := string(cairnIn(t, h, bin, nil, "show", strings.Fields(lines[1])[0])); term.InOrder(shown, typedFirst, typedFirstAnswer, typedSecond, typedSecondAnswer) != "" {
				t.Errorf("the stored session lacks the two rounds in order:\n%s", shown)
			}
		})
	}
}
