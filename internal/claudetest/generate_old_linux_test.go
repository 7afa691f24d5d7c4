package claudetest_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/internal/claudetest"
	"cairn/internal/fakeapi"
)

var generateOld = flag.Bool("old", false, "regenerate testdata/shapes/claude-1.0 with Claude Code "+oldVersion+" ($CAIRN_CLAUDE_1_0)")

// The 1.0.x sessions of testdata/shapes/claude-1.0 are made by this release
// in these fixed folders, recorded in the files.
const (
	oldVersion = "1.0.51"
	oldHome    = "/tmp/cairn-old/home"
	oldProject = "/tmp/cairn-old/proj"
	oldOut     = "../../testdata/shapes/claude-1.0"
)

// oldBinary returns the 1.0.x client ($CAIRN_CLAUDE_1_0, else where
// `npm install --prefix /tmp/claude-old/1.0.51 @anthropic-ai/claude-code@1.0.51`
// puts it), "" when it is not there or is another release. It is a node
// program (cli.js); node 20 runs it.
func oldBinary() string {
	bin := os.Getenv("CAIRN_CLAUDE_1_0")
	if bin == "" {
		bin = "/tmp/claude-old/" + oldVersion + "/node_modules/.bin/claude"
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), oldVersion+" ") {
		return ""
	}
	return bin
}

// oldSummary answers the old client's compaction requests.
const oldSummary = `<summary>
1. Primary Request and Intent: keep an inventory of parts in parts.txt and check it with the shell.
2. Files: parts.txt lists the parts, one a line; numbers.txt holds 1 to 3000.
3. Errors and fixes: none.
4. Pending Tasks: none.
</summary>`

// Prompts of the 1.0.x sessions, and of the resume that records what the
// client sends for each.
const (
	oldStock   = "Take stock of the inventory in this folder"
	oldFourth  = "Add a fourth part to the inventory"
	oldAfter   = "After the compaction, check the count of parts"
	oldWork    = "Work through the numbered parts one by one"
	oldAudit   = "Audit the parts with a subagent"
	oldSub     = "SUBAGENT: count the parts listed in parts.txt"
	oldThanks  = "Thanks. Which part was added last?"
	oldResumed = "What is left to do now?"
)

func oldTurns() []fakeapi.Turn {
	bash := func(cmd, desc string) []fakeapi.Block {
		return []fakeapi.Block{{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": cmd, "description": desc}}}
	}
	text := func(s string) []fakeapi.Block { return []fakeapi.Block{{Type: "text", Text: s}} }
	var work [][]fakeapi.Block
	for i := 1; i <= 6; i++ {
		work = append(work, bash(fmt.Sprintf("printf 'part %%d: %%s\\n' %d \"$(seq -s ' ' 1 400 | head -c 1200)\" >> numbered.txt && wc -l numbered.txt", i), fmt.Sprintf("Add numbered part %d", i)))
	}
	work = append(work, text("The six numbered parts are in numbered.txt."))
	return []fakeapi.Turn{
		{Match: oldStock, Steps: [][]fakeapi.Block{
			bash("ls -la", "List the folder"),
			bash("seq 1 3000 > numbers.txt && printf 'part %s\\n' 1 2 3 > parts.txt && cat numbers.txt parts.txt", "Write and show the inventory"),
			bash(`grep -c "part" parts.txt`, "Count the parts"),
			text("The inventory lists three parts in parts.txt (and numbers.txt holds 1 to 3000)."),
		}},
		{Match: oldFourth, Steps: [][]fakeapi.Block{
			bash("cat >> parts.txt <<'EOF'\npart 4\nEOF\ncat parts.txt", "Append part 4"),
			text("parts.txt now lists four parts."),
		}},
		{Match: oldAfter, Steps: [][]fakeapi.Block{
			bash("wc -l < parts.txt", "Count the lines"),
			text("Four parts, as before the compaction."),
		}},
		{Match: oldWork, Steps: work},
		{Match: oldSub, Steps: [][]fakeapi.Block{
			bash("wc -l parts.txt", "Count the parts"),
			text("parts.txt lists 4 parts."),
		}},
		{Match: oldAudit, Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "Task", Input: map[string]any{"description": "Count the parts", "prompt": oldSub}}},
			// Twice: this release sends its first exchange again in the
			// next request (seen in every -p run), which the fake counts.
			text("The subagent counted four parts."),
			text("The subagent counted four parts."),
		}},
		{Match: oldThanks, Steps: [][]fakeapi.Block{text("Part 4, appended with a heredoc.")}},
		{Match: oldResumed, Steps: [][]fakeapi.Block{text("Nothing is left to do.")}},
	}
}

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
	seedOldHome(t)
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
	api.Refuse = func(int) string {
		calls++
		if calls == 4 {
			api.SetInputTokens(190_000)
		} else {
			api.SetInputTokens(0)
		}
		return ""
	}
	term = startOld(t, bin, api.URL)
	term.prompt(oldWork, "six numbered parts are in")
	auto := term.quit()
	api.Refuse = nil
	api.SetInputTokens(0)
	keepOld(t, "auto", auto)
	keepResume(t, bin, api, "auto", auto)

	// sidechain, then resumed.
	res := claudetest.Run(t, bin, oldHome, oldProject, api.URL, "-p", oldAudit, "--allowedTools", "Bash Task")
	keepOld(t, "sidechain", res.SessionID)
	res2 := claudetest.Run(t, bin, oldHome, oldProject, api.URL, "--resume", res.SessionID, "-p", oldThanks)
	keepOld(t, "resumed", res2.SessionID)
	t.Logf("claude %s: compact %s, auto %s, sidechain %s, resumed %s", oldVersion, compact, auto, res.SessionID, res2.SessionID)
}

// seedOldHome writes the scratch home's .claude.json as this release wants
// it: onboarding done, the project trusted with its allowed tools.
func seedOldHome(t *testing.T) {
	claudetest.SeedHome(t, oldHome, oldProject, oldVersion)
	p := filepath.Join(oldHome, ".claude.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["projects"] = map[string]any{oldProject: map[string]any{
		"allowedTools": []string{"Bash", "Task"}, "hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true,
		"mcpContextUris": []string{}, "mcpServers": map[string]any{}, "enabledMcpjsonServers": []string{},
		"disabledMcpjsonServers": []string{}, "ignorePatterns": []string{}, "history": []string{},
	}}
	if data, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
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
