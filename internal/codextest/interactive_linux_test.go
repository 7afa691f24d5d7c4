package codextest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/internal/codextest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/term"
	"github.com/cairn-dev/cairn/surgery"
)

// A prompt typed into the resumed session, and the stand-in's answer.
const (
	typed       = "A prompt typed in the terminal."
	typedAnswer = "ANSWER-TYPED from the stand-in"
)

// TestInteractiveResume: Codex has no hooks cairn's loop uses, so what a
// person meets of cairn in its terminal is a resumed export. The sample
// cut by compress-before at round 2 is written as a rollout, `codex
// resume THREAD` runs in a pseudo-terminal (the project trusted), a
// prompt is typed, /quit. The request of that prompt carries every
// message and call of the export (outputs after their calls), its user
// and assistant messages in the export's order, the summary first, then
// the typed prompt; the screen shows the prompt and its answer.
func TestInteractiveResume(t *testing.T) {
	bin := codextest.Binary(t)
	ctx := context.Background()
	st, id := mustOpenSample(t)
	m, err := surgery.CompressBefore(ctx, st, id, surgery.Point{Seq: 2}, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	head, err := st.Lines.FindLines(ctx, id, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	x := &codex.Exporter{Summary: surgery.Summary(m), Blocks: blocksOf(m), Meta: codex.MetaLine(head)}
	api := fakeapi.NewResponses(fakeapi.ResponsesTurn{Match: "typed in the terminal", Steps: [][]fakeapi.Item{{{Type: "message", Text: typedAnswer}}}})
	defer api.Close()
	h := codextest.NewHome(t, api.URL)
	lines := writeExport(t, h, m, x, "interactive")
	f, err := os.OpenFile(filepath.Join(h.CodexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("\n[projects.\"" + h.Cwd + "\"]\ntrust_level = \"trusted\"\n")
	f.Close()
	began := time.Now()
	tm := term.Start(t, term.Command{Path: bin, Args: []string{"resume", x.ThreadID}, Dir: h.Cwd,
		Env: []string{"HOME=" + h.Home, "CODEX_HOME=" + h.CodexHome, "FAKE_KEY=sk-test"}, Quit: []string{"/quit", "\r"}})
	ready := func(l string) bool { return strings.Contains(l, "fake-model") }
	tm.Ask(ready, typed, typedAnswer, time.Minute)
	screen := tm.Screen()
	tm.Close()
	if ok, err := tm.Exited(time.Second); !ok || err != nil {
		t.Errorf("/quit did not end the client: %v, %v", ok, err)
	}
	t.Logf("codex resume, a prompt and /quit in %v; the screen before /quit:\n%s", time.Since(began).Round(time.Millisecond), screen)
	if miss := term.InOrder(screen, typed, typedAnswer); miss != "" {
		t.Errorf("the screen does not show %q in its place", miss)
	}

	var req *sentRequest
	for _, r := range api.Requests() {
		if strings.Contains(string(r.Body), typed) && req == nil {
			req = readSent(t, r.Body)
		}
	}
	if req == nil {
		t.Fatal("no request carried the typed prompt")
	}
	checkRequest(t, req, lines)
	// The export's conversation, then the prompt: each where it was.
	var want []string
	for _, it := range exportedMessages(lines) {
		want = append(want, it.Role+": "+it.Text())
	}
	want = append(want, "user: "+typed)
	var got []string
	for _, it := range req.input {
		if it.Type == "message" && (it.Role == "user" || it.Role == "assistant") {
			got = append(got, it.Role+": "+it.Text())
		}
	}
	next := 0
	for _, g := range got {
		if next < len(want) && g == want[next] {
			next++
		}
	}
	if next < len(want) {
		t.Errorf("the request lacks, in its place, %.200q; it sends:\n%.3000s", want[next], strings.Join(got, "\n"))
	}
}

// exportedMessages returns the user and assistant messages of an
// export's lines, in order.
func exportedMessages(lines [][]byte) []fakeapi.InputItem {
	var out []fakeapi.InputItem
	for _, raw := range lines {
		var l struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(raw, &l) != nil || l.Type != "response_item" {
			continue
		}
		var it fakeapi.InputItem
		if json.Unmarshal(l.Payload, &it) == nil && it.Type == "message" && (it.Role == "user" || it.Role == "assistant") {
			out = append(out, it)
		}
	}
	return out
}
