package claudetest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// clientSummary is what the stand-in API answers a compaction request
// with: were it in a request, the client would have compacted.
const clientSummary = "E2E-CLIENT-SUMMARY-31c9: the client's own lossy summary."

// TestReviveFullWindow is issue 26 point 4: a session whose last reply
// reported a full window (995,000 tokens of the clients' 1,000,000) is
// revived with the built cairn, and the real client resumes the revive
// with a new prompt. The first conversation request it sends is the
// normal one, not a compaction request: it holds cairn's summary and the
// prompt, not the client's summary, and the API would take it
// ([fakeapi.CheckRequest]); and cairn's own pressure note, on that prompt,
// reports the revive's own small size, not the source's full window.
func TestReviveFullWindow(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { reviveFullWindow(t, c, cairnBin) })
	}
}

func reviveFullWindow(t *testing.T, c claudetest.Client, cairnBin string) {
	api := fakeapi.New()
	defer api.Close()
	api.SetSummary(clientSummary)
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	// A note at every 5 % crossing: the revive's first prompt gets one
	// that says how full cairn measures it.
	mustCairn(t, cairnBin, proj, "install", "claude", "--pressure", "1")

	first := claudetest.Run(t, c.Path, home, proj, api.URL, "-p", "the first prompt")
	api.SetInputTokens(995_000)
	claudetest.Run(t, c.Path, home, proj, api.URL, "--resume", first.SessionID, "-p", "the second prompt")
	api.SetInputTokens(100)

	// The hooks inscribed the session as it ran; cairn revive cuts it and
	// writes the revive where the client looks, under the scratch HOME.
	cmd := exec.Command(cairnBin, "revive", first.SessionID)
	cmd.Dir = proj
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TZ=UTC"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cairn revive: %v\n%s", err, out)
	}
	written := writtenRE.FindSubmatch(out)
	if written == nil {
		t.Fatalf("cairn revive wrote nothing:\n%s", out)
	}
	path := string(written[1])
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	summary, own := revivedFacts(t, data)
	if own >= fakeapi.DefaultWindow/2 {
		t.Errorf("the revive's last reply reports %d tokens: its source's size, not its own", own)
	}

	before := len(api.Requests())
	const prompt = "E2E revive of a full window: carry on."
	res := claudetest.Run(t, c.Path, home, proj, api.URL, "--resume", id, "-p", prompt)
	if res.IsError {
		t.Fatalf("client reported an error: %+v", res)
	}
	var conv *fakeapi.Request
	var compactions int
	for _, r := range api.Requests()[before:] {
		var req fakeapi.MessagesRequest
		if !strings.Contains(r.Path, "/v1/messages") || strings.Contains(r.Path, "count_tokens") || json.Unmarshal(r.Body, &req) != nil || len(req.Messages) == 0 {
			continue
		}
		if last := req.Messages[len(req.Messages)-1]; last.Role == "user" && strings.Contains(string(last.Content), fakeapi.CompactMarker) {
			compactions++
			continue
		}
		if len(req.Tools) > 0 && conv == nil {
			conv = &r
		}
	}
	if compactions > 0 {
		t.Errorf("the client compacted the revive (%d compaction requests) before the first prompt", compactions)
	}
	if conv == nil {
		t.Fatal("no conversation request after the resume")
	}
	var req fakeapi.MessagesRequest
	if err := json.Unmarshal(conv.Body, &req); err != nil {
		t.Fatal(err)
	}
	body := string(conv.Body)
	switch {
	case strings.Contains(body, clientSummary):
		t.Errorf("the first request carries the client's summary, not cairn's view")
	case !strings.Contains(strings.Join(req.Messages[0].Texts(), "\n"), summary):
		t.Errorf("the first message does not hold cairn's summary %.80q", summary)
	}
	if last := lastUser(req.Messages); last == nil || !strings.Contains(strings.Join(last.Texts(), " "), prompt) {
		t.Errorf("the first request after the resume is not the one for the new prompt")
	}
	for _, p := range fakeapi.CheckRequest(conv.Body, fakeapi.DefaultWindow) {
		t.Errorf("request: %s", p)
	}

	// cairn's hook measures the revive as the client does: its own size.
	note := regexp.MustCompile(`your context is (\d+)% of the way to where the client compacts it \(([\d,]+) of ([\d,]+) tokens`).FindStringSubmatch(body)
	if note == nil {
		t.Fatalf("no pressure note in the request for the new prompt (the revive reports %d tokens)", own)
	}
	// The denominator is where this client compacts this model (its
	// window less the reply and margin, cairn.ClaudeCodeWindow): the
	// default model's 1M window with 2.1.330; 2.1.197's 200k window
	// itself, which it compacts only when the API refuses.
	if want := fmt.Sprint(own); strings.ReplaceAll(note[2], ",", "") != want || (note[3] != "967,000" && note[3] != "200,000") {
		t.Errorf("pressure note: %s%%, %s of %s tokens; want %s (the revive's own size) of where the client compacts", note[1], note[2], note[3], want)
	}
	t.Logf("%s: revive of a session whose last reply reported 995,000 tokens: its last reply reports %d; pressure note %s%% (%s of %s); first request %d bytes, %d messages, %d compaction requests",
		c.Version, own, note[1], note[2], note[3], len(conv.Body), len(req.Messages), compactions)
}

// revivedFacts returns, of a revive's lines, the first line of cairn's
// summary and the tokens its last reply reports it carried in (what the
// client and cairn's hooks read as how full the context is).
func revivedFacts(t *testing.T, data []byte) (summary string, tokens int64) {
	t.Helper()
	for _, raw := range claudecode.SplitLines(data) {
		var l struct {
			Type             string `json:"type"`
			IsCompactSummary bool   `json:"isCompactSummary"`
			Message          struct {
				Content json.RawMessage `json:"content"`
				Usage   *struct {
					Input         int64 `json:"input_tokens"`
					CacheRead     int64 `json:"cache_read_input_tokens"`
					CacheCreation int64 `json:"cache_creation_input_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if err := json.Unmarshal(bytes.TrimSpace(raw), &l); err != nil {
			t.Fatal(err)
		}
		switch {
		case l.IsCompactSummary && summary == "":
			var s string
			if json.Unmarshal(l.Message.Content, &s) != nil {
				t.Fatalf("summary line: %s", raw)
			}
			summary, _, _ = strings.Cut(s, "\n")
		case l.Type == "assistant" && l.Message.Usage != nil:
			tokens = l.Message.Usage.Input + l.Message.Usage.CacheRead + l.Message.Usage.CacheCreation
		}
	}
	if summary == "" || tokens == 0 {
		t.Fatalf("the revive has no summary (%q) or no usage (%d)", summary, tokens)
	}
	return summary, tokens
}
