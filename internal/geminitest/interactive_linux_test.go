package geminitest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/geminitest"
	"github.com/cairn-dev/cairn/internal/term"
)

// Two prompts a person types, and the stand-in's answers to them.
const (
	firstPrompt  = "This is the first typed prompt."
	firstAnswer  = "ANSWER-ONE from the stand-in"
	secondPrompt = "This is the second typed prompt."
	secondAnswer = "ANSWER-TWO from the stand-in"
	startMarker  = "interactive-start-marker"
)

// TestInteractive runs each release's full-screen interface in a
// pseudo-terminal, in a project where cairn is installed as a user
// installs it (`cairn install gemini`: hooks in .gemini/settings.json),
// types two prompts and /quit. The request of the second prompt carries
// cairn's start context (SessionStart's, the workspace's decision) once,
// in the first user content before the first prompt, then the first
// answer and the second prompt; cairn's store holds the session's two
// rounds after it (AfterAgent and SessionEnd inscribed it live); the
// screen shows each prompt with its answer, in order, and no failing
// hook. In a new session the loop shows the person nothing in Gemini CLI
// (its line for the person is a revived session's, at the start).
func TestInteractive(t *testing.T) {
	bin := mustBuildCairn(t)
	for _, c := range geminitest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			api := fakeapi.NewGemini(
				fakeapi.GeminiTurn{Match: "first typed prompt", Steps: [][]fakeapi.GeminiPart{{{Text: firstAnswer}}}},
				fakeapi.GeminiTurn{Match: "second typed prompt", Steps: [][]fakeapi.GeminiPart{{{Text: secondAnswer}}}},
			)
			defer api.Close()
			h := geminitest.NewHome(t, api.URL)
			store := filepath.Join(t.TempDir(), "cairn.db")
			run := &cairnRun{bin: bin, home: h, store: store}
			run.run(t, "install", "gemini")
			run.run(t, "decide", "Greetings stay lower case: "+startMarker)

			began := time.Now()
			tm := term.Start(t, term.Command{
				Path: c.Bin, Dir: h.Cwd,
				Env: []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
					"HOME=" + h.Home, "GEMINI_API_KEY=test-key", "GOOGLE_GEMINI_BASE_URL=" + api.URL, "CAIRN_STORE=" + store},
				Quit: []string{"/quit", "\r"},
			})
			prompt := func(line string) bool { return strings.Contains(line, "Type your message") }
			for _, p := range [][2]string{{firstPrompt, firstAnswer}, {secondPrompt, secondAnswer}} {
				tm.Ask(prompt, p[0], p[1], time.Minute)
			}
			screen := tm.Screen()
			tm.Close()
			if ok, err := tm.Exited(time.Second); !ok || err != nil {
				t.Errorf("/quit did not end the client: %v, %v", ok, err)
			}
			t.Logf("%s %s: two prompts and /quit in %v; the screen before /quit:\n%s", c.Name, c.Version, time.Since(began).Round(time.Millisecond), screen)

			if miss := term.InOrder(screen, "> "+firstPrompt, "✦ "+firstAnswer, "> "+secondPrompt, "✦ "+secondAnswer); miss != "" {
				t.Errorf("the screen does not show %q in its place", miss)
			}
			if all := term.Plain(tm.Raw()); strings.Contains(strings.ToLower(all), "hook") && strings.Contains(strings.ToLower(all), "fail") {
				t.Errorf("the client reported a failing hook:\n%s", all)
			}

			reqs := api.ConversationRequests()
			if len(reqs) == 0 {
				t.Fatal("no conversation request reached the stand-in")
			}
			last := reqs[len(reqs)-1]
			var texts []string
			marked := 0
			for _, ct := range last.Contents {
				texts = append(texts, ct.Role+": "+ct.Text())
				if strings.Contains(ct.Text(), startMarker) {
					marked++
				}
			}
			flat := strings.Join(texts, "\n")
			if marked != 1 {
				t.Errorf("cairn's start context is in %d contents of the second prompt's request, want 1:\n%s", marked, flat)
			}
			if miss := term.InOrder(flat, "user: ", startMarker, firstPrompt, "model: "+firstAnswer, "user: "+secondPrompt); miss != "" {
				t.Errorf("the second prompt's request lacks %q in its place:\n%s", miss, flat)
			}

			sessions := run.run(t, "sessions", "--agent", "gemini")
			lines := strings.Split(strings.TrimSpace(sessions), "\n")
			if len(lines) != 2 || !strings.Contains(lines[1], firstPrompt) {
				t.Fatalf("cairn's store does not hold the one session:\n%s", sessions)
			}
			rounds := run.run(t, "show", strings.Fields(lines[1])[0])
			if miss := term.InOrder(rounds, firstPrompt, firstAnswer, secondPrompt, secondAnswer); miss != "" {
				t.Errorf("the stored rounds lack %q in its place:\n%s", miss, rounds)
			}
		})
	}
}
