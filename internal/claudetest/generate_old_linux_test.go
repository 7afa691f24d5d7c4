package claudetest_test

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

var generateOld = flag.Bool("old", false, "regenerate testdata/shapes/claude-1.0 with Claude Code "+oldVersion+" ($CAIRN_CLAUDE_1_0)")

// TestGenerateOld makes the 1.0.x sessions of testdata/shapes/claude-1.0
// with the real client 1.0.51 driven offline by the fake API:
//
//	go test ./internal/claudetest -run TestGenerateOld -old -v
//
// compact: two prompts, a typed /compact (interactively: in -p mode this
// release compacts without writing the summary), a third prompt. auto: a
// reply near the window makes the client compact by itself mid-round.
// Both are resumed with -p afterwards, and the request the client sends
// then is kept beside them (<id>.resume-request.json). sidechain: a Task
// sub-agent, written inline (isSidechain) in the session's file; resumed:
// that session resumed with -p, which this release writes as a new file
// holding the old lines again under the new id.
func TestGenerateOld(t *testing.T) {
	if !*generateOld {
		t.Skip("run with -old to regenerate testdata/shapes/claude-1.0")
	}
	bin := oldBinary()
	if bin == "" {
		t.Fatalf("no claude %s: install it with npm install --prefix /tmp/claude-old/%s @anthropic-ai/claude-code@%s, or set CAIRN_CLAUDE_1_0", oldVersion, oldVersion, oldVersion)
	}
	for _, dir := range []string{oldHome, oldProject, oldOut} {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	seedOldHome(t, oldHome)
	api := fakeapi.New(oldTurns()...)
	api.SetSummary(oldSummary)
	defer api.Close()

	// compact: a typed /compact between two prompts and a third.
	term := startOld(t, bin, api.URL)
	term.prompt(oldStock, "three parts in parts.txt")
	term.prompt(oldFourth, "now lists four parts")
	term.prompt("/compact", "Compacted")
	term.prompt(oldAfter, "Four parts, as before")
	compact := term.quit()
	keepOld(t, "compact", compact)
	keepResume(t, bin, api, "compact", compact)

	// auto: the fourth reply says the context is near the window (190,000
	// of 200,000 tokens; the client compacts above 92 %), so the client
	// compacts before its next request and carries on.
	calls := 0
	api.SetRefuse(func(int) string {
		calls++
		if calls == 4 {
			api.SetInputTokens(190_000)
		} else {
			api.SetInputTokens(0)
		}
		return ""
	})
	term = startOld(t, bin, api.URL)
	term.prompt(oldWork, "six numbered parts are in")
	auto := term.quit()
	api.SetRefuse(nil)
	api.SetInputTokens(0)
	keepOld(t, "auto", auto)
	keepResume(t, bin, api, "auto", auto)

	// sidechain, then resumed.
	res := claudetest.Run(t, bin, oldHome, oldProject, api.URL, "-p", oldAudit, "--allowedTools", "Bash Task")
	keepOld(t, "sidechain", res.SessionID)
	res2 := claudetest.Run(t, bin, oldHome, oldProject, api.URL, "--resume", res.SessionID, "-p", oldThanks)
	keepOld(t, "resumed", res2.SessionID)
	t.Logf("claude %s: compact %s, auto %s, sidechain %s, resumed %s", oldVersion, compact, auto, res.SessionID, res2.SessionID)
	generateResumed20(t, api)
}

// generateResumed20 makes testdata/shapes/claude-2.0/resumed with the client
// 2.0.30 ($CAIRN_CLAUDE_2_0, else /tmp/claude-old/2.0.30): a prompt, then
// the session resumed with -p. That release appends the resumed run to the
// session's own file, but starts under an id of its own: it leaves an
// empty file of that id, and its "Warmup" sub-agents' files (agent-<id>.jsonl
// beside the session) carry both ids, the new one on the prompt and the
// resumed one on the reply. The whole project folder is kept.
func generateResumed20(t *testing.T, api *fakeapi.Server) {
	bin := os.Getenv("CAIRN_CLAUDE_2_0")
	if bin == "" {
		bin = "/tmp/claude-old/" + version20 + "/node_modules/.bin/claude"
	}
	if out, err := exec.Command(bin, "--version").Output(); err != nil || !strings.HasPrefix(string(out), version20+" ") {
		t.Fatalf("no claude %s at %s (CAIRN_CLAUDE_2_0): npm install --prefix /tmp/claude-old/%s @anthropic-ai/claude-code@%s", version20, bin, version20, version20)
	}
	home := filepath.Join(oldHome, "2.0")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	res := claudetest.Run(t, bin, home, oldProject, api.URL, "-p", oldStock, "--allowedTools", "Bash")
	claudetest.Run(t, bin, home, oldProject, api.URL, "--resume", res.SessionID, "-p", oldThanks)
	src := filepath.Join(claudecode.ProjectsDir(home), "-tmp-cairn-old-proj")
	out := filepath.Join(oldOut, "..", "claude-2.0", "resumed")
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(out, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	t.Logf("claude %s: resumed %s", version20, res.SessionID)
}

// oldTerm is the old client run interactively.
type oldTerm struct {
	t    *testing.T
	term *claudetest.Term
	seen map[string]bool // transcripts there before it started
}

const oldWait = 90 * time.Second

func startOld(t *testing.T, bin, baseURL string) *oldTerm {
	seen := map[string]bool{}
	for _, p := range oldTranscripts() {
		seen[p] = true
	}
	term := claudetest.StartTerm(t, nil, bin, oldHome, oldProject, baseURL)
	term.WaitScreen("the welcome box", func(l string) bool { return strings.Contains(l, "Welcome to Claude Code") }, oldWait)
	return &oldTerm{t: t, term: term, seen: seen}
}

// prompt types text a key at a time (this release reads a burst as a
// paste) and waits for want on the screen.
func (o *oldTerm) prompt(text, want string) {
	o.t.Helper()
	o.term.Idle(2*time.Second, oldWait)
	mark := o.term.Mark()
	for _, r := range text {
		o.term.Keys(string(r))
		time.Sleep(15 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	o.term.Keys("\r")
	o.term.WaitFor(mark, want, oldWait)
}

// quit ends the client with two ctrl-c (no /exit lines in the transcript)
// and returns the id of the session it wrote.
func (o *oldTerm) quit() string {
	o.t.Helper()
	o.term.Idle(2*time.Second, oldWait)
	o.term.Keys("\x03")
	time.Sleep(300 * time.Millisecond)
	o.term.Keys("\x03")
	if ok, _ := o.term.Exited(20 * time.Second); !ok {
		o.t.Fatalf("the client did not end on ctrl-c; the screen:\n%s", o.term.Screen())
	}
	var made []string
	for _, p := range oldTranscripts() {
		if !o.seen[p] {
			made = append(made, p)
		}
	}
	if len(made) != 1 {
		o.t.Fatalf("want one new transcript, have %v", made)
	}
	return strings.TrimSuffix(filepath.Base(made[0]), ".jsonl")
}

func oldTranscripts() []string {
	paths, _ := filepath.Glob(filepath.Join(oldHome, ".claude", "projects", "*", "*.jsonl"))
	return paths
}

// keepOld copies session id's transcript into testdata/shapes/claude-1.0/<shape>/.
func keepOld(t *testing.T, shape, id string) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(oldHome, ".claude", "projects", "*", id+".jsonl"))
	if len(paths) != 1 {
		t.Fatalf("%s: no transcript %s", shape, id)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(oldOut, shape)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// keepResume resumes session id with -p, as a person picking it up again
// does, and keeps the request the client sends for it beside the session.
func keepResume(t *testing.T, bin string, api *fakeapi.Server, shape, id string) {
	t.Helper()
	prompt := oldResumed + " (" + shape + ")"
	claudetest.Run(t, bin, oldHome, oldProject, api.URL, "--resume", id, "-p", prompt)
	req := mainRequest(t, api, prompt)
	if err := os.WriteFile(filepath.Join(oldOut, shape, id+".resume-request.json"), req.body, 0o644); err != nil {
		t.Fatal(err)
	}
}
