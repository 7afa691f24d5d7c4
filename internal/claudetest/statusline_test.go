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
