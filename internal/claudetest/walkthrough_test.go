package claudetest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestWalkThrough12Prompts (issue #42, the closing note) walks one session
// of the real client through every moment cairn's loop acts at, twelve
// prompts in print mode (-p, then --resume), cairn installed as a user
// installs it (`cairn install claude`: hooks, the status line, pressure
// marks at 70 and 85 %) on a 200k model: the session's start, a frame
// pushed, worked in and popped inside one prompt, the turn's end after
// the pop, a 70 % and an 85 % crossing, a sub-agent, a /compact, the
// session's end, and the revived session the person is advised to switch
// to, resumed. The fake API reports a request's bytes / 4 as its input
// tokens, plus, from the fifth prompt to the compaction, what brings the
// context to ~75 % and then ~90 % of the window (files read, as it
// were), so the marks are crossed where the walk needs them.
//
// For each moment it records what cairn told the agent (its texts new
// in the requests the moment's run sent: hook context, a cairn command's
// output), what it told the person (the hook's systemMessage the client
// printed, which 2.1.197 does not with -p; what cairn recorded as shown;
// the status line, as `cairn statusline` prints it from the client's
// status input) and the size of each request, and logs the table. It
// asserts what the loop promises: each crossing told once, to the agent
// and the person alike; one resume command per moment, naming the
// session it acts on; the same revived session at the pop's turn end and
// the next prompt; requests in order with their roles alternating
// ([fakeapi.CheckRequest]); a revived session told none of its parent's
// notes.
func TestWalkThrough12Prompts(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { walkThrough(t, c, cairnBin) })
	}
}

// walkWindow is the window of the walk's model, claude-sonnet-4-5: the
// client compacts it at no threshold of its own (TestPressureWindow).
const walkWindow = 200_000

// A walkMoment is one run of the client: a prompt and what it met.
type walkMoment struct {
	prompt, moment string
	pad            int      // tokens the fake API added to bytes / 4
	agent          []string // cairn's texts new in the run's requests
	person         []string // the hook messages the client printed
	shown          string   // what cairn recorded as shown to the person, when it changed
	status         string   // the status line after the run
	end            string   // the checkpoint the session's end wrote
	bodies         []string // the run's conversation requests
	reqs           []walkRequest
}

// A walkRequest is one conversation request of a run.
type walkRequest struct {
	bytes, messages, tokens int
	sub                     bool // the sub-agent's
	compaction              bool // the client's request for a summary
}

// walkSession drives the walk's session and keeps its moments.
type walkSession struct {
	t                    *testing.T
	c                    claudetest.Client
	api                  *fakeapi.Server
	cairnBin, home, proj string
	env                  []string
	session              string
	seen                 map[string]bool
	lastShown            string
	moments              []*walkMoment
	pad                  int
	lastBytes            int
}

const (
	walkPlanted = "WALK-PLANTED-4a7e"
	walkResults = "WALK-RESULTS-81f2"
	walkSubTask = "WALK-SUB-count the callers of lex"
)

func walkThrough(t *testing.T, c claudetest.Client, cairnBin string) {
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	work := strings.Repeat("// "+walkPlanted+" parser code, one line of many\n", 2500) // ~130 KB
	api := fakeapi.New(
		fakeapi.Turn{Match: "add the parser", Steps: [][]fakeapi.Block{
			{{Type: "text", Text: "A frame for the parser."}, {Type: "tool_use", Name: "Bash", Input: map[string]any{
				"command": "cairn push Parser --root --id parser --criteria 'tests pass'", "description": "push"}}},
			{{Type: "tool_use", Name: "Write", Input: map[string]any{"file_path": filepath.Join(proj, "parser.go"), "content": work}}},
			{{Type: "tool_use", Name: "Bash", Input: map[string]any{
				"command": "cairn pop --results '" + walkResults + ": parser.go written, tests pass'", "description": "pop"}}},
			{{Type: "text", Text: "The parser is in and its tests pass."}},
		}},
		fakeapi.Turn{Match: "delegate the count", Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "Agent", Input: map[string]any{"description": "Count callers", "prompt": walkSubTask, "subagent_type": "general-purpose", "run_in_background": false}}},
			{{Type: "text", Text: "The sub-agent counted 12 callers."}},
		}},
		fakeapi.Turn{Match: walkSubTask, Steps: [][]fakeapi.Block{{{Type: "text", Text: "12 callers."}}}},
	)
	defer api.Close()
	api.SetSummary("SUMMARY of the walk: the parser is in, its frame popped.")
	mustCairn(t, cairnBin, proj, "install", "claude")
	w := &walkSession{t: t, c: c, api: api, cairnBin: cairnBin, home: home, proj: proj,
		env: []string{"ANTHROPIC_MODEL=claude-sonnet-4-5"}, seen: map[string]bool{}}
	w.setPad(0)
	defer w.log()

	w.run("let us start on the lexer", "session start (new), prompt 1")
	w.run("name the tokens", "prompt 2")
	pop := w.run("add the parser", "prompt 3: frame pushed, worked in, popped; its turn's end")
	next := w.run("go on with the lexer", "prompt 4: the prompt after the pop")
	w.setPad(walkWindow*3/4 - w.lastBytes/4)
	w.run("read the grammar", "prompt 5: its reply reports ~75%")
	at70 := w.run("check the grammar", "prompt 6: the 70% crossing")
	w.setPad(walkWindow*9/10 - w.lastBytes/4)
	between := w.run("tidy the names", "prompt 7: its reply reports ~90%")
	at85 := w.run("read the spec", "prompt 8: the 85% crossing")
	sub := w.run("delegate the count", "prompt 9: a sub-agent")
	w.setPad(0)
	compact := w.run("/compact", "prompt 10: /compact (manual compaction)")
	after := w.run("after the compaction, go on", "prompt 11: after the compaction")
	end := w.run("wrap up", "prompt 12, then the session's end")
	board, _ := os.ReadFile(filepath.Join(proj, "board.md"))
	if i := strings.LastIndex(string(board), "\n### "); i >= 0 {
		end.end = strings.TrimSpace(string(board[i:]))
	}

	// The pop: its output announces the collapse and names no command; the
	// turn's end shows the person the revived session, and the next
	// prompt tells the agent the same one.
	popOut := w.find(pop.agent, "popped parser")
	if popOut == "" || strings.Contains(popOut, "compress-frames") || !strings.Contains(popOut, "cairn prepares a revived session of "+w.session) {
		t.Errorf("cairn pop told the agent %q", popOut)
	}
	personNew := resumeLine.FindStringSubmatch(strings.Join(append(append([]string{}, pop.person...), pop.shown, next.shown), "\n"))
	agentNew := resumeLine.FindStringSubmatch(w.find(next.agent, "after your pop"))
	if personNew == nil || agentNew == nil || personNew[1] != agentNew[1] {
		t.Errorf("after the pop the person was shown %q and the agent told %q at the next prompt, want one session", personNew, agentNew)
	}

	// The sessions the person was shown, resumed: the pop's, with the
	// frame's steps collapsed to its results, and the one the command
	// advised at the 85 % crossing (the person's, asserted below) prints,
	// run as the person runs it.
	revived := []*walkMoment{w.revive(at85)}
	if personNew != nil {
		popped := w.resume(personNew[1], "the person resumed the pop's revived session "+personNew[1])
		revived = append(revived, popped)
		if body := strings.Join(popped.bodies, ""); strings.Contains(body, walkPlanted) || !strings.Contains(body, walkResults) {
			t.Errorf("the pop's revived session holds the frame's steps (%v) or lacks its results (%v)", strings.Contains(body, walkPlanted), !strings.Contains(body, walkResults))
		}
	}
	if c.AtLeast(printShowsPerson) && (len(pop.person) != 1 || !strings.Contains(pop.person[0], "finished frames (parser)")) {
		t.Errorf("the pop's turn end showed the person %q, want the finished frames' revived session once", pop.person)
	}

	// Each crossing told once, to the agent and the person, the same
	// command.
	for _, x := range []struct {
		m    *walkMoment
		mark string
	}{{at70, "past the 70% mark"}, {at85, "past the 85% mark"}} {
		var told int
		for _, m := range w.moments {
			for _, s := range m.agent {
				told += strings.Count(s, x.mark)
			}
		}
		note := w.find(x.m.agent, x.mark)
		if told != 1 || note == "" {
			t.Errorf("the agent was told %q %d times, want once at %s", x.mark, told, x.m.moment)
			continue
		}
		cmd := walkCommand.FindStringSubmatch(note)
		if cmd == nil {
			t.Errorf("the note at %s gives no command:\n%s", x.m.moment, note)
			continue
		}
		if !strings.Contains(x.m.status, "advised: "+cmd[1]) {
			t.Errorf("at %s the agent was given %q and the status line reads %q", x.m.moment, cmd[1], x.m.status)
		}
		if c.AtLeast(printShowsPerson) && (len(x.m.person) != 1 || !strings.Contains(x.m.person[0], cmd[1])) {
			t.Errorf("at %s the agent was given %q and the person was shown %q", x.m.moment, cmd[1], x.m.person)
		}
	}
	// The 85 % crossing advising the 70 % one's command tells the person
	// that advice still stands, not new advice.
	cmd70, cmd85 := walkCommand.FindStringSubmatch(w.find(at70.agent, "past the 70% mark")), walkCommand.FindStringSubmatch(w.find(at85.agent, "past the 85% mark"))
	if c.AtLeast(printShowsPerson) && cmd70 != nil && cmd85 != nil && len(at70.person) == 1 && len(at85.person) == 1 {
		if same, stands := cmd70[1] == cmd85[1], strings.Contains(at85.person[0], "still stands"); same != stands || strings.Contains(at70.person[0], "still stands") {
			t.Errorf("the 70%% mark advised %q, the 85%% mark %q, and the person was shown at 70%%: %q, at 85%%: %q", cmd70[1], cmd85[1], at70.person[0], at85.person[0])
		}
	}
	if strings.Contains(between.status, "advised:") {
		t.Errorf("the prompt after the 70%% crossing still shows the person %q", between.status)
	}
	for _, m := range w.moments {
		if m != pop && m != at70 && m != at85 && len(m.person) != 0 {
			t.Errorf("%s showed the person %q", m.moment, m.person)
		}
	}

	// One moment, one command: a moment names at most one session to
	// resume, and cairn's commands name the session they act on.
	acts := regexp.MustCompile(`cairn (?:revive|advise|compress-frames|compress-before|inject|extract) ([0-9a-f-]{36})`)
	for _, m := range w.moments {
		told := append(append([]string{}, m.agent...), m.person...)
		ids := map[string]bool{}
		for _, s := range told {
			for _, r := range resumeLine.FindAllStringSubmatch(s, -1) {
				ids[r[1]] = true
			}
			for _, a := range acts.FindAllStringSubmatch(s, -1) {
				if a[1] != w.session {
					t.Errorf("%s: %q names %s, not the session %s", m.moment, a[0], a[1], w.session)
				}
			}
		}
		if len(ids) > 1 {
			t.Errorf("%s names %d sessions to resume: %v", m.moment, len(ids), ids)
		}
	}

	// The sub-agent was started with cairn's relay context.
	if w.find(sub.agent, "You are a sub-agent working on hand-off") == "" {
		t.Errorf("the sub-agent's requests hold no relay context: %q", sub.agent)
	}
	// The compaction: the client summarized, and the session goes on from
	// the summary.
	asked := slices.ContainsFunc(compact.reqs, func(r walkRequest) bool { return r.compaction })
	if !asked || requestsWith(w.api.Requests(), "SUMMARY of the walk") == 0 || len(after.reqs) == 0 || len(sub.reqs) == 0 || after.reqs[0].messages >= sub.reqs[len(sub.reqs)-1].messages {
		t.Errorf("no compaction before %s: its requests %+v", after.moment, after.reqs)
	}
	// The request after the compaction holds cairn's context once: the
	// resume note the /compact run's start gave, which the client carries
	// across, and the compaction's context without the lines it gave.
	if len(after.bodies) > 0 {
		body := after.bodies[0]
		if strings.Count(body, "H-001 done by") != 1 || strings.Count(body, "# Cold start") != 1 || strings.Contains(body, "earlier in this conversation holds") {
			t.Errorf("the request after the compaction holds the hand-off %d times, the prime %d times, a claim the context before holds: %v",
				strings.Count(body, "H-001 done by"), strings.Count(body, "# Cold start"), strings.Contains(body, "earlier in this conversation holds"))
		}
	}
	// Right after the compaction the status line estimates what the
	// client sends next, marked as an estimate.
	if len(after.reqs) > 0 {
		checkCompactedFigure(t, compact.status, after.reqs[0].tokens)
	}
	// Eleven rounds: /compact is the client's own command, no prompt to
	// the agent.
	if !strings.Contains(end.end, "Session "+w.session[:8]+" ended (") || !strings.Contains(end.end, "after 11 rounds") {
		t.Errorf("the session's end left no checkpoint of its 11 rounds in board.md:\n%s", board)
	}

	// The revived sessions are told none of their parent's notes.
	for _, m := range revived {
		for _, stale := range []string{"your context is", "after your pop", "past the 70% mark", "past the 85% mark", "Command: cairn", "cairn revive " + w.session, "cairn compress-before " + w.session} {
			for _, s := range m.agent {
				if strings.Contains(s, stale) {
					t.Errorf("%s: the revived session is told its parent's %q:\n%s", m.moment, stale, s)
				}
			}
		}
	}
}

// setPad sets the tokens the fake API adds to a request's bytes / 4, for
// the session's own requests (those past [walkPadFrom] bytes; the
// sub-agent's are smaller).
func (w *walkSession) setPad(pad int) {
	w.pad = max(pad, 0)
	p := w.pad
	w.api.SetUsage(func(n int) int { return n/4 + padded(n, p) })
}

// walkPadFrom is the size from which a request is the session's own, past
// the frame's file (~130 KB), not the sub-agent's (~50 KB).
const walkPadFrom = 150_000

func padded(n, pad int) int {
	if n < walkPadFrom {
		return 0
	}
	return pad
}

// run sends one prompt in the walk's session and records the moment.
func (w *walkSession) run(prompt, moment string) *walkMoment {
	w.t.Helper()
	args := []string{"-p", prompt, "--allowedTools", "Bash,Write,Agent,Task", "--output-format", "stream-json", "--verbose"}
	if w.session != "" {
		args = append([]string{"--resume", w.session}, args...)
	}
	before := len(w.api.Requests())
	r := claudetest.RunEnv(w.t, w.env, w.c.Path, w.home, w.proj, w.api.URL, args...)
	if r.IsError {
		w.t.Fatalf("%s: %+v", moment, r)
	}
	if w.session == "" {
		w.session = r.SessionID
	}
	m := &walkMoment{prompt: prompt, moment: moment, pad: w.pad, person: hookMessages(r.Stdout)}
	w.record(m, w.api.Requests()[before:], false)
	if data, err := os.ReadFile(filepath.Join(w.proj, ".cairn", "context", w.session+".shown")); err == nil && string(data) != w.lastShown {
		w.lastShown = string(data)
		m.shown = strings.TrimSpace(string(data))
	}
	m.status = statusline(w.t, w.cairnBin, w.proj, []string{"HOME=" + w.home, "AI_AGENT=claude-code_" + strings.ReplaceAll(w.c.Version, ".", "-") + "_harness"}, map[string]any{
		"session_id": w.session, "transcript_path": claudetestTranscript(w.t, w.home, w.session), "cwd": w.proj,
		"model": map[string]any{"id": "claude-sonnet-4-5"}, "context_window": map[string]any{"context_window_size": walkWindow},
	})
	w.moments = append(w.moments, m)
	return m
}

// record adds to m the conversation requests among reqs (those offering
// tools), checked, with cairn's texts in them not seen before (the
// client's own list of cairn's MCP tools left out).
func (w *walkSession) record(m *walkMoment, reqs []fakeapi.Request, revived bool) {
	for _, r := range reqs {
		var body fakeapi.MessagesRequest
		if !strings.Contains(r.Path, "/v1/messages") || strings.Contains(r.Path, "count_tokens") || json.Unmarshal(r.Body, &body) != nil || len(body.Tools) == 0 {
			continue
		}
		if len(body.Messages) == 0 {
			w.t.Errorf("%s: a request of no messages", m.moment)
			continue
		}
		sub := strings.Contains(string(body.Messages[0].Content), walkSubTask)
		last := body.Messages[len(body.Messages)-1]
		compaction := last.Role == "user" && (strings.Contains(string(last.Content), fakeapi.CompactMarker) || strings.Contains(string(last.Content), fakeapi.OldCompactMarker))
		m.bodies = append(m.bodies, string(r.Body))
		m.reqs = append(m.reqs, walkRequest{bytes: len(r.Body), messages: len(body.Messages), tokens: len(r.Body)/4 + padded(len(r.Body), w.pad), sub: sub, compaction: compaction})
		if !sub {
			w.lastBytes = len(r.Body)
		}
		for _, p := range fakeapi.CheckRequest(r.Body, walkWindow) {
			w.t.Errorf("%s: a request of %d messages breaks a rule of the API: %s", m.moment, len(body.Messages), p)
		}
		for _, msg := range body.Messages {
			if msg.Role != "user" {
				continue
			}
			for _, s := range userTexts(msg) {
				if !strings.Contains(strings.ReplaceAll(s, "mcp__cairn__", ""), "cairn") || w.seen[s] && !revived {
					continue
				}
				w.seen[s] = true
				if sub {
					s = "(sub-agent) " + s
				}
				if !revived || !slices.Contains(m.agent, s) {
					m.agent = append(m.agent, s)
				}
			}
		}
	}
}

// walkCommand is the command a pressure note recommends.
var walkCommand = regexp.MustCompile(`Command: (cairn [^\\()]+?) \(it prints`)

// revive runs the command the pressure note at m recommends, as the
// person runs it, and resumes the session it prints.
func (w *walkSession) revive(m *walkMoment) *walkMoment {
	w.t.Helper()
	cmd := walkCommand.FindStringSubmatch(strings.Join(m.agent, "\n"))
	if cmd == nil {
		w.t.Fatalf("the note at %s recommends no command: %q", m.moment, m.agent)
	}
	args := strings.Fields(cmd[1])[1:]
	c := exec.Command(w.cairnBin, args...)
	c.Dir = w.proj
	c.Env = append(os.Environ(), "HOME="+w.home, "CLAUDE_CONFIG_DIR=", "CAIRN_SESSION=", "CLAUDE_CODE_SESSION_ID=", "CAIRN_AGENT=")
	out, err := c.CombinedOutput()
	if err != nil {
		w.t.Fatalf("%s: %v\n%s", cmd[1], err, out)
	}
	id := resumeLine.FindStringSubmatch(string(out))
	if id == nil {
		w.t.Fatalf("%s names no session to resume:\n%s", cmd[1], out)
	}
	return w.resume(id[1], "the person ran `"+cmd[1]+"` and resumed "+id[1])
}

// resume has the client resume the revived session id with a prompt of
// its own, and records it as a moment.
func (w *walkSession) resume(id, moment string) *walkMoment {
	w.t.Helper()
	w.setPad(0)
	before := len(w.api.Requests())
	r := claudetest.RunEnv(w.t, w.env, w.c.Path, w.home, w.proj, w.api.URL, "--resume", id, "-p", "in the revived session", "--output-format", "stream-json", "--verbose")
	if r.IsError {
		w.t.Fatalf("the revived session: %+v", r)
	}
	rm := &walkMoment{prompt: "in the revived session", moment: moment, person: hookMessages(r.Stdout)}
	w.record(rm, w.api.Requests()[before:], true)
	w.moments = append(w.moments, rm)
	return rm
}

// find returns the first of texts holding s, "" if none.
func (w *walkSession) find(texts []string, s string) string {
	for _, x := range texts {
		if strings.Contains(x, s) {
			return x
		}
	}
	return ""
}

// log writes the walk's table to the test's log and to a file under the
// test's temporary folder.
func (w *walkSession) log() {
	var b strings.Builder
	fmt.Fprintf(&b, "claude %s, model claude-sonnet-4-5 (window %s), session %s\n", w.c.Version, thousands(walkWindow), w.session)
	for i, m := range w.moments {
		fmt.Fprintf(&b, "\n## %d. %s\nprompt: %q\n", i+1, m.moment, m.prompt)
		fmt.Fprintf(&b, "requests (bytes / messages / input tokens reported, bytes/4 + %s):", thousands(m.pad))
		for _, r := range m.reqs {
			sub := ""
			switch {
			case r.sub:
				sub = "sub-agent "
			case r.compaction:
				sub = "compaction "
			}
			fmt.Fprintf(&b, " [%s%s B / %d / %s]", sub, thousands(r.bytes), r.messages, thousands(r.tokens))
		}
		b.WriteString("\nagent:")
		if len(m.agent) == 0 {
			b.WriteString(" (nothing)")
		}
		for _, s := range m.agent {
			fmt.Fprintf(&b, "\n  - %s", clip(s, 1500))
		}
		b.WriteString("\nperson (client output):")
		if len(m.person) == 0 {
			b.WriteString(" (nothing)")
		}
		for _, s := range m.person {
			fmt.Fprintf(&b, "\n  - %s", clip(s, 1500))
		}
		if m.shown != "" {
			fmt.Fprintf(&b, "\nperson (recorded as shown): %s", clip(m.shown, 1500))
		}
		if m.status != "" {
			fmt.Fprintf(&b, "\nstatus line: %s", m.status)
		}
		if m.end != "" {
			fmt.Fprintf(&b, "\nsession end, board.md: %s", clip(m.end, 1500))
		}
		b.WriteString("\n")
	}
	path := filepath.Join(w.t.TempDir(), "walkthrough.md")
	_ = os.WriteFile(path, []byte(b.String()), 0o644)
	w.t.Logf("the walk (%s):\n%s", path, b.String())
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d more bytes)", len(s)-n)
}

// userTexts returns the texts of a user message: its text blocks and its
// tool results' texts.
func userTexts(m fakeapi.Message) []string {
	var out []string
	for _, b := range m.Blocks() {
		switch b.Type {
		case "text":
			out = append(out, b.Text)
		case "tool_result":
			var s string
			if json.Unmarshal(b.Content, &s) == nil {
				out = append(out, s)
				continue
			}
			var inner []fakeapi.CheckBlock
			_ = json.Unmarshal(b.Content, &inner)
			for _, x := range inner {
				if x.Type == "text" {
					out = append(out, x.Text)
				}
			}
		}
	}
	return out
}

// hookMessages returns what the client printed of cairn's hooks for the
// person: the messages it relays ("UserPromptSubmit says: cairn: …") and
// what a hook wrote to its standard error.
func hookMessages(out []byte) []string {
	var msgs []string
	for _, line := range strings.Split(string(out), "\n") {
		var ev struct {
			Type, Subtype, Content, Stderr string
			HookName                       string `json:"hook_name"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "system" {
			continue
		}
		switch {
		case ev.Subtype == "informational" && strings.Contains(ev.Content, "cairn"):
			msgs = append(msgs, ev.Content)
		case ev.Subtype == "hook_response" && strings.TrimSpace(ev.Stderr) != "":
			msgs = append(msgs, ev.HookName+" stderr: "+ev.Stderr)
		}
	}
	return msgs
}

// thousands writes n with commas, as cairn's notes do.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
