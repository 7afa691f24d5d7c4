package claudetest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestStatuslinePastThePoint (issue #42) runs the real client on a 1M
// window (the status line reports context_window_size 1,000,000) with
// replies of 980,000 tokens, past the point where 2.1.330 compacts
// (967,000), and of 1,034,000, past the window itself, and gives `cairn
// statusline` the status JSON the client gives it. The line's point never
// rises above the window, nor its percentage above 100: a walk-through
// read ctx 100% (1034k/1001k), a point that rose with the tokens.
func TestStatuslinePastThePoint(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			api := fakeapi.New()
			defer api.Close()
			home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
			mustCairn(t, cairnBin, proj, "install", "claude")
			api.SetSummary("SUMMARY of the session")
			env := []string{"ANTHROPIC_MODEL=claude-sonnet-4-5[1m]"}
			first := claudetest.RunEnv(t, env, c.Path, home, proj, api.URL, "-p", "the first prompt")
			// The client's own release, as it sets it for its status line.
			agent := "AI_AGENT=claude-code_" + strings.ReplaceAll(c.Version, ".", "-") + "_harness"
			for i, tokens := range []int{980_000, 1_034_000} {
				api.SetInputTokens(tokens)
				claudetest.RunEnv(t, env, c.Path, home, proj, api.URL, "--resume", first.SessionID, "-p", "prompt "+strconv.Itoa(i))
				line := statusline(t, cairnBin, proj, []string{agent, "HOME=" + home}, map[string]any{
					"session_id": first.SessionID, "transcript_path": claudetestTranscript(t, home, first.SessionID), "cwd": proj,
					"model":          map[string]any{"id": "claude-sonnet-4-5[1m]"},
					"context_window": map[string]any{"context_window_size": 1_000_000},
				})
				m := ctxFigure.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("after a reply of %d tokens the status line reads %q", tokens, line)
				}
				pct, _ := strconv.Atoi(m[1])
				held, _ := strconv.Atoi(m[2])
				point, _ := strconv.Atoi(m[3])
				if pct > 100 || point > 1000 || held != tokens/1000 || pct != min(100, held*100/point) {
					t.Errorf("after a reply of %d tokens on a 1M window the status line reads %q: a point past the window or a percentage past 100", tokens, line)
				}
				if c.AtLeast(defaultOpus55) && m[0] != "ctx 100% ("+strconv.Itoa(tokens/1000)+"k/967k)" {
					t.Errorf("claude %s compacts a 1M window at 967,000 with -p: the status line reads %q", c.Version, line)
				}
			}
		})
	}
}

var ctxFigure = regexp.MustCompile(`ctx (\d+)% \((\d+)k/(\d+)k\)`)

// statusline runs `cairn statusline` in dir with status on stdin, as the
// client runs it, env added (its HOME: the transcript's folders).
func statusline(t *testing.T, cairnBin, dir string, env []string, status map[string]any) string {
	t.Helper()
	in, err := json.Marshal(status)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cairnBin, "statusline")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CAIRN_SESSION=", "CLAUDE_CODE_SESSION_ID=", "CAIRN_AGENT=")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cairn statusline: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestPersonSeesTheAdvice (issue #42, walk-through 1) runs the real
// client with a configured window of 1,000 tokens and pressure marks at
// 70 and 85 %: a reply of 750 tokens, then one of 900. The prompt after
// each crosses a mark, and its note recommends advise's command, which
// ends in a `claude --resume` only the person can run: the person is
// shown the same command at each crossing (the hook's systemMessage, on
// the releases that print it with -p, and the status line until the next
// prompt, on both), and at no prompt between.
func TestPersonSeesTheAdvice(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			api := fakeapi.New()
			defer api.Close()
			home, proj := tinyWindow(t, cairnBin)
			stream := []string{"--output-format", "stream-json", "--verbose"}
			run := func(args ...string) *claudetest.Result {
				t.Helper()
				return claudetest.Run(t, c.Path, home, proj, api.URL, append(args, stream...)...)
			}
			first := run("-p", "prompt 0")
			status := func() string {
				return statusline(t, cairnBin, proj, []string{"HOME=" + home}, map[string]any{
					"session_id": first.SessionID, "transcript_path": claudetestTranscript(t, home, first.SessionID), "cwd": proj})
			}
			command := regexp.MustCompile(`Command: (cairn [^\\()]+?) \(it prints`)
			prompt, shownBefore := 1, ""
			for _, tokens := range []int{750, 900} {
				api.SetInputTokens(tokens)
				between := run("--resume", first.SessionID, "-p", "prompt "+strconv.Itoa(prompt))
				if shown := personShown(between.Stdout); len(shown) != 0 {
					t.Errorf("prompt %d crossed nothing and the person was shown %q", prompt, shown)
				}
				prompt++
				before := len(api.Requests())
				crossing := run("--resume", first.SessionID, "-p", "prompt "+strconv.Itoa(prompt))
				var agent string
				for _, r := range api.Requests()[before:] {
					if m := command.FindStringSubmatch(string(r.Body)); m != nil && strings.Contains(string(r.Body), "prompt "+strconv.Itoa(prompt)) {
						agent = m[1]
					}
				}
				if agent == "" {
					t.Fatalf("the request of prompt %d, after a reply of %d of 1,000 tokens, gives the agent no command", prompt, tokens)
				}
				if line := status(); !strings.Contains(line, "advised: "+agent) {
					t.Errorf("after the crossing at %d tokens the agent was given %q and the status line reads %q", tokens, agent, line)
				}
				t.Logf("crossing at %d tokens: the agent was given %q; the status line reads %q", tokens, agent, status())
				if c.AtLeast(printShowsPerson) {
					t.Logf("the person was shown %q", personShown(crossing.Stdout))
					if shown := personShown(crossing.Stdout); len(shown) != 1 || !strings.Contains(shown[0], agent) {
						t.Errorf("at the crossing at %d tokens the agent was given %q and the person was shown %q", tokens, agent, shown)
					} else if stands := strings.Contains(shown[0], "still stands"); stands != (agent == shownBefore) {
						t.Errorf("at the crossing at %d tokens the person was shown %q, the command shown before being %q", tokens, shown[0], shownBefore)
					}
				}
				shownBefore = agent
				prompt++
			}
			last := run("--resume", first.SessionID, "-p", "prompt "+strconv.Itoa(prompt))
			if shown := personShown(last.Stdout); len(shown) != 0 {
				t.Errorf("a prompt that crossed nothing showed the person %q", shown)
			}
			if line := status(); strings.Contains(line, "advised:") {
				t.Errorf("after a prompt that crossed nothing the status line reads %q", line)
			}
		})
	}
}
