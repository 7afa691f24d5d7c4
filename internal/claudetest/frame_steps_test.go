package claudetest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestFramePushedAndPoppedInOnePrompt (issue #42, 2a) has the real
// client's agent push a frame, work in it (a large file written, a
// detail planted there) and pop it with results, all inside one prompt's
// work, as agents do. The turn's end after the pop (the next prompt with
// a client that writes the turn after its Stop hook) is the moment that
// acts: the frame's steps weigh enough of the context, so cairn prepares
// a revived session with them collapsed and shows the person the command,
// and the agent the same one at its next prompt; the pop named none of
// its own (one moment, one command). Resumed by the real client, its request holds the frame's results, the
// prompt and the answer after the pop, in order and with their roles,
// and nothing of the frame's steps.
func TestFramePushedAndPoppedInOnePrompt(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { framePushedAndPopped(t, c, cairnBin) })
	}
}

const (
	stepPlanted = "STEP-PLANTED-91c3"
	stepResults = "PARSER-RESULTS-5e07"
	stepAnswer  = "PARSER-ANSWER-2b8d: the parser is in and its tests pass."
)

func framePushedAndPopped(t *testing.T, c claudetest.Client, cairnBin string) {
	bin := c.Path
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	work := strings.Repeat("// "+stepPlanted+" parser code, one line of many\n", 2500) // ~130 KB: more than the client's own overhead
	api := fakeapi.New(fakeapi.Turn{Match: "add the parser", Steps: [][]fakeapi.Block{
		{{Type: "text", Text: "A frame for the parser."}, {Type: "tool_use", Name: "Bash", Input: map[string]any{
			"command": "cairn push Parser --root --id parser --criteria 'tests pass'", "description": "push"}}},
		{{Type: "tool_use", Name: "Write", Input: map[string]any{"file_path": filepath.Join(proj, "parser.go"), "content": work}}},
		{{Type: "tool_use", Name: "Bash", Input: map[string]any{
			"command": "cairn pop --results '" + stepResults + ": parser.go written, tests pass'", "description": "pop"}}},
		{{Type: "text", Text: stepAnswer}},
	}})
	api.SetUsage(func(n int) int { return n / 4 }) // the request's size, as the real API counts it roughly
	defer api.Close()
	mustCairn(t, cairnBin, proj, "install", "claude")
	stream := []string{"--output-format", "stream-json", "--verbose"}

	first := claudetest.Run(t, bin, home, proj, api.URL, append([]string{"-p", "add the parser", "--allowedTools", "Bash,Write"}, stream...)...)
	if first.IsError {
		t.Fatalf("the run: %+v", first)
	}
	// 2.1.330 runs its Stop hook as the turn ends, and prints cairn's
	// reply to the person. 2.1.197 in print mode writes the turn only
	// after the hook returns, so cairn weighs the pop at the next prompt,
	// and relays no hook's systemMessage (TestPersonSeesTheResume): there
	// the command is read where cairn records what it showed.
	shown := personShown(first.Stdout)
	goOn := len(api.Requests())
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "go on")
	if !c.AtLeast(printShowsPerson) {
		data, err := os.ReadFile(filepath.Join(proj, ".cairn", "context", first.SessionID+".shown"))
		if err != nil {
			t.Fatalf("the next prompt showed the person nothing: %v", err)
		}
		shown = []string{"finished frames (parser): " + string(data)}
	}
	if len(shown) != 1 || !strings.Contains(shown[0], "finished frames (parser)") {
		t.Fatalf("the person was shown %q at the turn's end after the pop; hook output:\n%s", shown, hookLines(first.Stdout))
	}
	id := resumeLine.FindStringSubmatch(shown[0])
	if id == nil {
		t.Fatalf("no command in %q", shown[0])
	}
	// One moment, one command: the pop announced the collapse without a
	// command of its own, and the agent is told the session the person
	// was shown, at its next prompt.
	var told, popOut bool
	for _, r := range api.Requests() {
		var m fakeapi.MessagesRequest
		if json.Unmarshal(r.Body, &m) != nil || len(m.Messages) == 0 {
			continue
		}
		last := string(m.Messages[len(m.Messages)-1].Content)
		if strings.Contains(last, "popped parser") {
			popOut = true
			if strings.Contains(last, "compress-frames") || !strings.Contains(last, "cairn prepares a revived session of "+first.SessionID) {
				t.Errorf("cairn pop told the agent:\n%s", last)
			}
		}
	}
	for _, r := range api.Requests()[goOn:] {
		if b := string(r.Body); strings.Contains(b, "go on") && strings.Contains(b, "after your pop") && strings.Contains(b, "claude --resume "+id[1]) {
			told = true
		}
	}
	if !popOut || !told {
		t.Errorf("the pop's output reached the agent: %v; the agent was told the person's %s at the next prompt: %v", popOut, id[0], told)
	}

	before := len(api.Requests())
	if r := claudetest.Run(t, bin, home, proj, api.URL, "--resume", id[1], "-p", "after the collapse"); r.IsError {
		t.Fatalf("resume: %+v", r)
	}
	var req *fakeapi.MessagesRequest
	for _, r := range api.Requests()[before:] {
		var m fakeapi.MessagesRequest
		if strings.Contains(r.Path, "/v1/messages") && json.Unmarshal(r.Body, &m) == nil && strings.Contains(string(r.Body), "after the collapse") {
			req = &m
		}
	}
	if req == nil {
		t.Fatal("no request after the resume holds the new prompt")
	}
	// Where each text sits: the message and its role, in order.
	at := func(s string) (int, string) {
		for i, m := range req.Messages {
			if strings.Contains(string(m.Content), s) {
				return i, m.Role
			}
		}
		return -1, ""
	}
	for _, gone := range []string{stepPlanted, "cairn push Parser", "A frame for the parser."} {
		if i, _ := at(gone); i >= 0 {
			t.Errorf("the request still holds the frame's step %q (message %d)", gone, i)
		}
	}
	last := -1
	for _, want := range []struct{ text, role string }{
		{stepResults, "user"}, {"add the parser", "user"}, {"PARSER-ANSWER-2b8d", "assistant"}, {"after the collapse", "user"},
	} {
		i, role := at(want.text)
		if i < 0 || role != want.role || i < last {
			t.Fatalf("%q is message %d (%s), want a %s message after %d", want.text, i, role, want.role, last)
		}
		last = i
	}
	for i := 1; i < len(req.Messages); i++ {
		if req.Messages[i].Role == req.Messages[i-1].Role {
			t.Errorf("messages %d and %d are both %s", i-1, i, req.Messages[i].Role)
		}
	}
}

// hookLines returns the lines of the client's output that hooks wrote.
func hookLines(out []byte) string {
	var lines []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "hook") && len(line) < 4000 {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}
