package claudetest_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestPersonSeesTheResume (issue #42, 2e) runs the real client in print
// mode (stream-json, as a person's wrapper reads it) with a configured
// window of 1,000 tokens: a reply of 2,000 fills it, and the next prompt
// crosses the pressure marks at the point where the client compacts.
// cairn prepares a revived session; the command that resumes it reaches
// the agent (additionalContext, in the request) and is shown to the
// person (the hook's systemMessage, in the client's output) at that
// prompt and at no later one. 2.1.197 in print mode relays no hook's
// systemMessage (TestPersonSeesTheResumeInteractive shows it does in a
// terminal): there only the agent's part is checked.
func TestPersonSeesTheResume(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { personSeesTheResume(t, c, cairnBin) })
	}
}

// printShowsPerson is the first release known to print a hook's
// systemMessage in print mode's stream-json ("UserPromptSubmit says: …"):
// 2.1.330 does, 2.1.197 does not; releases between were not tried.
const printShowsPerson = "2.1.330"

// tinyWindow returns a scratch home and a project set up by `cairn install
// claude` with pressure marks at 70 and 85 % of a configured window of
// 1,000 tokens.
func tinyWindow(t *testing.T, cairnBin string) (home, proj string) {
	t.Helper()
	home, proj = claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude", "--pressure", "70,85")
	f, err := os.OpenFile(filepath.Join(proj, ".cairn", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("context_window = 1000\n"); err != nil {
		t.Fatal(err)
	}
	return home, proj
}

var resumeLine = regexp.MustCompile(`claude --resume ([0-9a-f-]{36})`)

func personSeesTheResume(t *testing.T, c claudetest.Client, cairnBin string) {
	bin := c.Path
	api := fakeapi.New()
	defer api.Close()
	home, proj := tinyWindow(t, cairnBin)
	stream := []string{"--output-format", "stream-json", "--verbose"}
	run := func(args ...string) *claudetest.Result {
		t.Helper()
		return claudetest.Run(t, bin, home, proj, api.URL, append(args, stream...)...)
	}

	first := run("-p", "the first prompt")
	api.SetInputTokens(2000)
	second := run("--resume", first.SessionID, "-p", "the second prompt")
	api.SetInputTokens(100)
	before := len(api.Requests())
	crossing := run("--resume", first.SessionID, "-p", "the third prompt")
	var agent []string
	for _, r := range api.Requests()[before:] {
		if m := resumeLine.FindStringSubmatch(string(r.Body)); m != nil && strings.Contains(string(r.Body), "the third prompt") {
			agent = m
		}
	}
	if agent == nil {
		t.Fatal("the request after the crossing names no revived session to the agent")
	}
	if !c.AtLeast(printShowsPerson) {
		t.Logf("claude %s prints no hook's systemMessage with -p; the person's part is not checked", c.Version)
		return
	}
	shown := personShown(crossing.Stdout)
	if len(shown) != 1 || !strings.Contains(shown[0], agent[0]) {
		t.Errorf("the person was shown %q at the crossing, want %q once", shown, agent[0])
	}
	for _, out := range [][]byte{first.Stdout, second.Stdout, run("--resume", first.SessionID, "-p", "the fourth prompt").Stdout} {
		if shown := personShown(out); len(shown) != 0 {
			t.Errorf("the person was shown %q at a prompt that crossed nothing", shown)
		}
	}
}

// personShown returns the texts of the client's output that show the
// person a revived session's command.
func personShown(out []byte) []string {
	var shown []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "Only you can switch to it") {
			shown = append(shown, line)
		}
	}
	return shown
}

// TestPersonSeesTheResumeOnceAtCompaction: a prompt whose reply before
// filled the client's default 1M window crosses the pressure marks, and
// the client compacts by itself before answering it. The crossing and the
// compaction are one moment with one revived session (the board names
// it): the person is shown its command once in that run's output, not
// again by the session start after the compaction. Print mode on the
// releases that both compact by themselves there and print a hook's
// systemMessage.
func TestPersonSeesTheResumeOnceAtCompaction(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			if !c.AtLeast(printShowsPerson) || !c.AtLeast(defaultOpus55) {
				t.Skipf("claude %s with -p prints no hook systemMessage or does not compact by itself", c.Version)
			}
			api := fakeapi.New()
			defer api.Close()
			api.SetSummary("SUMMARY of the session")
			home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
			mustCairn(t, cairnBin, proj, "install", "claude")
			stream := []string{"--output-format", "stream-json", "--verbose"}
			first := claudetest.Run(t, c.Path, home, proj, api.URL, append([]string{"-p", "the first prompt"}, stream...)...)
			api.SetInputTokens(995_000)
			claudetest.Run(t, c.Path, home, proj, api.URL, append([]string{"--resume", first.SessionID, "-p", "the second prompt"}, stream...)...)
			api.SetInputTokens(100)
			third := claudetest.Run(t, c.Path, home, proj, api.URL, append([]string{"--resume", first.SessionID, "-p", "the third prompt"}, stream...)...)
			data, err := os.ReadFile(claudetestTranscript(t, home, first.SessionID))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), `"trigger":"auto"`) {
				t.Fatal("the client did not compact by itself")
			}
			board, _ := os.ReadFile(filepath.Join(proj, "board.md"))
			id := resumeLine.FindString(string(board))
			if id == "" {
				t.Fatalf("the board names no revived session:\n%s", board)
			}
			if shown := personShown(third.Stdout); len(shown) != 1 || !strings.Contains(shown[0], id) {
				t.Errorf("the person was shown %q in the run that crossed and compacted, want %q once", shown, id)
			}
		})
	}
}
