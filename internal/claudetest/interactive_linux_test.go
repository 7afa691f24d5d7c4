package claudetest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestInteractive drives the real client as people use it: interactively,
// in a pseudo-terminal, in a project set up by `cairn install claude
// --statusline`, with the client's default model. One session of several
// prompts:
//
//   - the status line shows cairn's frame from the start, and its
//     "ctx N% (…k/…k)" from the first reply on;
//   - cairn's MCP server starts without the client asking the user about
//     it (install approved it), every cairn tool is in the request, and a
//     call of one runs without a permission prompt and its result reaches
//     the next request;
//   - a reply that fills 75 % of the way to the compaction point the status
//     line names shows in the status line, and the next prompt's request
//     carries cairn's pressure note with the same figures;
//   - a typed /compact sends the client's compaction request, and the
//     request after it carries cairn's context again (SessionStart
//     "compact");
//   - a reply past the compaction point makes the client compact by
//     itself before the next prompt, and cairn's PreCompact hook prepares
//     the revived session (.cairn/revived/, board.md), which the request
//     after the compaction names (releases that compact by themselves:
//     interactiveAutoCompact);
//   - /exit ends the session and SessionEnd checkpoints it.
//
// It runs on the oldest supported and the newest tested release. The
// client is given a seeded $HOME/.claude.json ([claudetest.SeedHome]:
// onboarding done, the project trusted) and nothing about MCP servers or
// permissions: what it asks about those is what a user would be asked.
func TestInteractive(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { interactive(t, c, cairnBin) })
	}
}

const (
	interTask    = "INTER-TASK-6d20"
	interMarker  = "INTER-CRITERIA-41be"
	interShown   = "INTER-STATE-SHOWN"
	interSummary = "INTER-SUMMARY-of-the-session"
)

// cairnTools are the tools cairn's MCP server offers, as the client names
// them.
var cairnTools = []string{"push", "pop", "plan", "context", "search", "checkpoint", "engage", "state", "inject", "retention"}

var statusLine = regexp.MustCompile(`ctx (\d+)% \((\d+)k/(\d+)k\)`)

func interactive(t *testing.T, c claudetest.Client, cairnBin string) {
	api := fakeapi.New(fakeapi.Turn{Match: "show the cairn state", Steps: [][]fakeapi.Block{
		{{Type: "tool_use", Name: "mcp__cairn__state", Input: map[string]any{}}},
		{{Type: "text", Text: interShown}},
	}})
	defer api.Close()
	api.SetSummary(interSummary)
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	out := mustCairn(t, cairnBin, proj, "install", "claude", "--statusline")
	if !strings.Contains(out, "MCP server approval installed") {
		t.Fatalf("install: %s", out)
	}
	mustCairn(t, cairnBin, proj, "state", "set", "--task", interTask)
	mustCairn(t, cairnBin, proj, "push", "Interactive work", "--root", "--criteria", interMarker)
	claudetest.SeedHome(t, home, proj, c.Version)

	term := claudetest.StartTerm(t, nil, c.Path, home, proj, api.URL)
	const wait = 90 * time.Second

	// Before any reply, cairn's status line names the frame.
	term.WaitScreen("cairn's status line", func(l string) bool { return strings.Contains(l, "frame f1 Interactive work") }, wait)

	// A first prompt: cairn's tools are offered, no question was asked.
	// prompt types text once the client is idle, waits for the request
	// that carries it and for the reply, and returns the request.
	prompt := func(text, reply string) sentRequest {
		t.Helper()
		term.Idle(2*time.Second, wait)
		before := len(api.Requests())
		term.Type(text)
		waitRequest(t, api, before, text, wait)
		// The reply under the prompt on the screen (what the client
		// writes may repeat an earlier one as it redraws).
		term.WaitScreen(reply+" after "+text, func(string) bool {
			screen := term.Screen()
			i := strings.LastIndex(screen, "❯ "+text)
			return i >= 0 && strings.Contains(screen[i:], "● "+reply)
		}, wait)
		return lastRequestWith(t, api, text)
	}
	req := prompt("the first prompt", fakeapi.DefaultReply)
	// After it, the status line has the occupancy too.
	line := term.WaitScreen("cairn's status line", statusLine.MatchString, wait)
	compactAt, _ := strconv.Atoi(statusLine.FindStringSubmatch(line)[3])
	compactAt *= 1000
	t.Logf("claude %s: the status line says %q", c.Version, strings.TrimSpace(line))
	for _, q := range []string{"New MCP server found", "Do you want to proceed", "Auto mode can"} {
		if strings.Contains(term.TextSince(0), q) {
			t.Fatalf("the client asked the user %q; the screen:\n%s", q, term.Screen())
		}
	}
	var names []string
	for _, raw := range req.Tools {
		var tool struct{ Name string }
		_ = json.Unmarshal(raw, &tool)
		names = append(names, tool.Name)
	}
	// Newer releases offer MCP tools deferred: named one a line in a
	// system reminder, their schema fetched with ToolSearch when the model
	// wants one.
	for _, tool := range cairnTools {
		if name := "mcp__cairn__" + tool; !slices.Contains(names, name) && !strings.Contains(string(req.raw), `\n`+name+`\n`) {
			t.Errorf("the request names no %s; it offers %v", name, names)
		}
	}

	// A cairn tool called: no permission prompt, its result in the next request.
	prompt("show the cairn state", interShown)
	if !toolResultHolds(api, interTask) {
		t.Errorf("no request holds the state tool's result with %s", interTask)
	}
	for _, q := range []string{"Do you want to proceed", "Auto mode can"} {
		if strings.Contains(term.TextSince(0), q) {
			t.Fatalf("the client asked the user %q about cairn's tool; the screen:\n%s", q, term.Screen())
		}
	}

	// Pressure: a reply 75 % of the way to where the status line says the
	// client compacts.
	full := compactAt * 3 / 4
	api.SetInputTokens(full)
	prompt("fill the context", fakeapi.DefaultReply)
	shown := fmt.Sprintf("ctx 75%% (%dk/%dk)", full/1000, compactAt/1000)
	term.WaitScreen(shown, func(l string) bool { return strings.Contains(l, shown) }, wait)
	api.SetInputTokens(100)
	note := fmt.Sprintf("your context is 75%% of the way to where the client compacts it (%s of %s tokens;", thousands(full), thousands(compactAt))
	if body := string(prompt("after the crossing", fakeapi.DefaultReply).raw); !strings.Contains(body, note) || !strings.Contains(body, "past the 70% mark") {
		t.Errorf("the request after the crossing lacks the pressure note %q", note)
	}

	// A typed /compact.
	term.Idle(2*time.Second, wait)
	before := len(api.Requests())
	mark := term.Mark()
	term.Type("/compact")
	waitRequest(t, api, before, fakeapi.CompactMarker, wait)
	term.WaitFor(mark, "Compacted", wait)
	term.WaitFor(mark, "PreCompact [cairn hook PreCompact] completed successfully", wait)
	if !strings.Contains(string(prompt("after the compaction", fakeapi.DefaultReply).raw), interMarker) {
		t.Errorf("the request after /compact lacks cairn's context (%s)", interMarker)
	}

	// Past the compaction point: the client compacts by itself.
	if c.AtLeast(interactiveAutoCompact) {
		autoCompact(t, api, term, prompt, home, proj)
	} else {
		t.Logf("claude %s does not compact by itself (a reply of 995,000 tokens, in -p and interactively); not checked", c.Version)
	}

	// /exit ends the session; SessionEnd checkpoints it.
	term.Close()
	if board, _ := os.ReadFile(filepath.Join(proj, cairn.BoardFile)); !strings.Contains(string(board), "ended (") {
		t.Errorf("no checkpoint on exit in board.md:\n%s", board)
	}
}

// autoCompact has the client compact by itself after a reply of 995,000
// tokens; cairn's PreCompact hook prepares a revived session, which the
// request after the compaction names.
func autoCompact(t *testing.T, api *fakeapi.Server, term *claudetest.Term, prompt func(text, reply string) sentRequest, home, proj string) {
	const wait = 90 * time.Second
	session := interactiveSession(t, home)
	api.SetInputTokens(995_000)
	prompt("fill it up", fakeapi.DefaultReply)
	term.Idle(2*time.Second, wait)
	api.SetInputTokens(100)
	before := len(api.Requests())
	last := prompt("after the exhaustion", fakeapi.DefaultReply)
	if !slices.ContainsFunc(api.Requests()[before:], func(r fakeapi.Request) bool {
		return strings.Contains(string(r.Body), fakeapi.CompactMarker)
	}) {
		t.Fatalf("the client did not compact by itself after a reply of 995,000 tokens; the screen:\n%s", term.Screen())
	}
	revived, err := os.ReadFile(filepath.Join(proj, ".cairn", "revived", session))
	if err != nil {
		t.Fatalf("PreCompact prepared no revived session: %v", err)
	}
	id := regexp.MustCompile(`claude --resume ([0-9a-f-]{36})`).FindStringSubmatch(string(revived))
	if id == nil {
		t.Fatalf(".cairn/revived/%s names no session: %q", session, revived)
	}
	if board, _ := os.ReadFile(filepath.Join(proj, cairn.BoardFile)); !strings.Contains(string(board), "Context exhausted") {
		t.Errorf("board.md records no exhaustion:\n%s", board)
	}
	if !strings.Contains(string(last.raw), id[1]) {
		t.Errorf("the request after the compaction does not name the revived session %s", id[1])
	}
}

// interactiveAutoCompact is the first release known to compact by itself
// in an interactive session after a reply of 995,000 tokens (its default
// model's window is 1M): 2.1.330 does, 2.1.197 does not (nor with -p);
// releases between were not tried.
const interactiveAutoCompact = "2.1.330"

// sentRequest is a Messages API request, decoded and raw.
type sentRequest struct {
	fakeapi.MessagesRequest
	raw []byte
}

// lastRequestWith returns the last conversation request (one that offers
// tools) whose body holds s.
func lastRequestWith(t *testing.T, api *fakeapi.Server, s string) sentRequest {
	t.Helper()
	reqs := api.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		r := reqs[i]
		var body fakeapi.MessagesRequest
		if strings.Contains(r.Path, "count_tokens") || json.Unmarshal(r.Body, &body) != nil || len(body.Tools) == 0 {
			continue
		}
		if strings.Contains(string(r.Body), s) {
			return sentRequest{body, r.Body}
		}
	}
	t.Fatalf("no request holds %q (%d requests)", s, len(reqs))
	return sentRequest{}
}

// toolResultHolds reports whether a request carries a tool result that
// holds s.
func toolResultHolds(api *fakeapi.Server, s string) bool {
	for _, r := range api.Requests() {
		var body fakeapi.MessagesRequest
		if json.Unmarshal(r.Body, &body) != nil {
			continue
		}
		for _, m := range body.Messages {
			if m.IsToolResult() && strings.Contains(string(m.Content), s) {
				return true
			}
		}
	}
	return false
}

// waitRequest waits until a request after the first `from` holds s.
func waitRequest(t *testing.T, api *fakeapi.Server, from int, s string, timeout time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if slices.ContainsFunc(api.Requests()[from:], func(r fakeapi.Request) bool { return strings.Contains(string(r.Body), s) }) {
			return
		}
	}
	t.Fatalf("no request holds %q within %v", s, timeout)
}

// interactiveSession returns the id of the one session the client wrote
// under home.
func interactiveSession(t *testing.T, home string) string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	if len(paths) != 1 {
		t.Fatalf("want one transcript, have %v", paths)
	}
	return strings.TrimSuffix(filepath.Base(paths[0]), ".jsonl")
}
