package claudetest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// compactMark is a line of PROJECT.md added between two runs: cairn's
// context changes, and the resume after it is given a note of that line.
const compactMark = "Convention: COMPACT-RESUME-MARK"

// TestCompactAfterResume (issue #42, walk-through 2) compacts a resumed
// session before any prompt, as `claude --resume ID -p /compact` does,
// after cairn's context changed: SessionStart(resume) gives the note of
// the changed line, SessionStart(compact) the context. Both releases
// record the resume's context before the compaction's boundary and chain
// the messages after it to that context, so the first request after the
// compaction carries the note and the compaction's context. It must hold
// each of cairn's lines once (the changed line, the prime's heading) and
// no claim that the context given before the compaction still holds.
func TestCompactAfterResume(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			s := compactResumed(t, c, cairnBin)
			body := string(s.next)
			if n := strings.Count(body, compactMark); n != 1 {
				t.Errorf("the request after the compaction holds the changed line %d times, want 1", n)
			}
			if n := strings.Count(body, "# Cold start"); n != 1 {
				t.Errorf("the request after the compaction holds cairn's prime %d times, want 1", n)
			}
			if strings.Contains(body, "earlier in this conversation holds") {
				t.Errorf("the request after the compaction claims the context given before it holds:\n%s", excerpt(body, "earlier in this conversation"))
			}
		})
	}
}

// A compactedSession is a session of the real client resumed to be
// compacted, and what came after.
type compactedSession struct {
	id, home, proj, transcript string
	status                     string // the status line right after the compaction
	next                       []byte // the first conversation request after it
	nextTokens                 int    // the input tokens the fake API reported for it
}

// compactResumed has the client write a file of ~66 KB (which it attaches
// again after a compaction), changes cairn's context, runs
// `claude --resume ID -p /compact`, reads the status line, and sends one
// more prompt. The fake API reports a request's bytes / 4 as its tokens.
func compactResumed(t *testing.T, c claudetest.Client, cairnBin string) *compactedSession {
	t.Helper()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	work := strings.Repeat("// parser code, one line of many\n", 2000)
	api := fakeapi.New(fakeapi.Turn{Match: "write it", Steps: [][]fakeapi.Block{
		{{Type: "tool_use", Name: "Write", Input: map[string]any{"file_path": filepath.Join(proj, "parser.go"), "content": work}}},
		{{Type: "text", Text: "Written."}},
	}})
	defer api.Close()
	api.SetSummary("SUMMARY of the work so far.")
	api.SetUsage(func(n int) int { return n / 4 })
	mustCairn(t, cairnBin, proj, "install", "claude")
	env := []string{"ANTHROPIC_MODEL=claude-sonnet-4-5"}
	first := claudetest.RunEnv(t, env, c.Path, home, proj, api.URL, "-p", "write it", "--allowedTools", "Write")
	f, err := os.OpenFile(filepath.Join(proj, "PROJECT.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n" + compactMark + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	claudetest.RunEnv(t, env, c.Path, home, proj, api.URL, "--resume", first.SessionID, "-p", "/compact")
	s := &compactedSession{id: first.SessionID, home: home, proj: proj, transcript: claudetestTranscript(t, home, first.SessionID)}
	s.status = statusline(t, cairnBin, proj, []string{"HOME=" + home}, map[string]any{
		"session_id": s.id, "transcript_path": s.transcript, "cwd": proj,
		"model": map[string]any{"id": "claude-sonnet-4-5"}, "context_window": map[string]any{"context_window_size": 200_000}})
	before := len(api.Requests())
	claudetest.RunEnv(t, env, c.Path, home, proj, api.URL, "--resume", s.id, "-p", "go on")
	for _, r := range api.Requests()[before:] {
		if strings.Contains(string(r.Body), "go on") && strings.Contains(r.Path, "/v1/messages") && !strings.Contains(r.Path, "count_tokens") {
			s.next, s.nextTokens = r.Body, len(r.Body)/4
			break
		}
	}
	if s.next == nil {
		t.Fatal("no conversation request after the compaction")
	}
	return s
}
