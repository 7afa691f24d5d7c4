package claudetest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestPersonSeesTheResumeInteractive is [TestPersonSeesTheResume] in a
// pseudo-terminal, as people use the client (2.1.197 in print mode does
// not relay a hook's systemMessage at all): the prompt that crosses into
// a full context shows the person the command that resumes the revived
// session, and the status line repeats it ("revived: claude --resume
// ID") until the prompt after it, which shows it nowhere again.
func TestPersonSeesTheResumeInteractive(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			api := fakeapi.New()
			defer api.Close()
			home, proj := tinyWindow(t, cairnBin)
			claudetest.SeedHome(t, home, proj, c.Version)
			term := claudetest.StartTerm(t, nil, c.Path, home, proj, api.URL)
			defer term.Close()

			ptyPrompt(t, term, api, "the first prompt")
			api.SetInputTokens(2000)
			ptyPrompt(t, term, api, "fill it up")
			api.SetInputTokens(100)
			ptyPrompt(t, term, api, "after the crossing")
			req := lastRequestWith(t, api, "after the crossing")
			agent := resumeLine.FindString(string(req.raw))
			if agent == "" {
				t.Fatal("the request after the crossing names no revived session to the agent")
			}
			shown := func() int {
				screen := squeeze(term.Screen())
				if !strings.Contains(screen, squeeze(agent)) {
					return 0
				}
				return strings.Count(screen, squeeze("Only you can switch to it"))
			}
			for deadline := time.Now().Add(30 * time.Second); shown() == 0 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			}
			if shown() != 1 {
				t.Fatalf("the person was shown %q %d times, want once; the screen:\n%s", agent, shown(), term.Screen())
			}
			// The status line repeats it until the next prompt.
			term.WaitScreen("the revived session in the status line", func(l string) bool { return strings.Contains(l, "revived: "+agent) }, 30*time.Second)
			ptyPrompt(t, term, api, "one more prompt")
			term.Idle(2*time.Second, time.Minute)
			if n := shown(); n != 1 {
				t.Errorf("after the next prompt the screen shows the command %d times, want the one of the crossing; the screen:\n%s", n, term.Screen())
			}
			for deadline := time.Now().Add(30 * time.Second); strings.Contains(term.Screen(), "revived: ") && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			}
			if strings.Contains(term.Screen(), "revived: ") {
				t.Errorf("the status line still names the revived session after the next prompt; the screen:\n%s", term.Screen())
			}
		})
	}
}

// squeeze drops every space and line break: the terminal wraps a long
// message anywhere.
func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }
