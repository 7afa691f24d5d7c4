package pitest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/pitest"
)

// buildCairn builds the cairn command as users install it.
func buildCairn(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "cairn")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/cairn-dev/cairn/cmd/cairn").CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// cairnIn runs cairn in the home's working directory with its HOME.
func cairnIn(tb testing.TB, h *pitest.Home, bin string, stdin []byte, args ...string) []byte {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = h.Cwd, h.Environ()
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("cairn %v: %v\n%s", args, err, out)
	}
	return out
}

// TestInstallPi: install writes .pi/extensions/cairn.ts once (a second run
// changes nothing), uninstall removes it and leaves the person's other
// extensions, and a second uninstall is a no-op.
func TestInstallPi(t *testing.T) {
	bin := buildCairn(t)
	h := pitest.NewHome(t, "http://127.0.0.1:1")
	dir := filepath.Join(h.Cwd, ".pi", "extensions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "mine.ts")
	if err := os.WriteFile(mine, []byte("export default function () {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cairnIn(t, h, bin, nil, "install", "pi", "--command", bin)
	ext := filepath.Join(dir, "cairn.ts")
	data, err := os.ReadFile(ext)
	if err != nil || !strings.Contains(string(data), `const CAIRN = "`+bin+`"`) || !strings.Contains(string(data), "session_before_compact") {
		t.Fatalf("extension: %v\n%s", err, data)
	}
	if out := cairnIn(t, h, bin, nil, "install", "pi", "--command", bin); !strings.Contains(string(out), "already installed") {
		t.Errorf("second install: %s", out)
	}
	cairnIn(t, h, bin, nil, "uninstall", "pi")
	if _, err := os.Stat(ext); !os.IsNotExist(err) {
		t.Errorf("cairn.ts left: %v", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the person's extension: %v", err)
	}
	cairnIn(t, h, bin, nil, "uninstall", "pi")
}

// smallWindow gives the home's model a window of 20,000 tokens and pi a
// reserve of 4,000 (settings.json): pi compacts past 16,000.
func smallWindow(t *testing.T, h *pitest.Home, url string) {
	t.Helper()
	models := strings.Replace(pitest.ModelsJSON(url), `"contextWindow":200000`, `"contextWindow":20000`, 1)
	if err := os.WriteFile(filepath.Join(h.Agent(), "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.Agent(), "settings.json"), []byte(`{"compaction":{"reserveTokens":4000}}`), 0o644); err != nil {
		t.Fatal(err)
	}
}

// compactTurns are the stand-in's answers to a session that compacts: a
// first prompt with a call, then one that fills the window.
func compactTurns() []fakeapi.Turn {
	return []fakeapi.Turn{{Match: "look at the work", Steps: [][]fakeapi.Block{
		{{Type: "tool_use", Name: "bash", Input: map[string]any{"command": "echo LOOKED"}}},
		{{Type: "text", Text: "Looked: the work is a LOOKED marker."}},
	}}, {Match: "fill the window", Steps: [][]fakeapi.Block{
		{{Type: "tool_use", Name: "bash", Input: map[string]any{"command": "echo FULL"}}},
		{{Type: "text", Text: "Filled."}},
	}}}
}

// compactWith runs a session long enough that pi 0.73.1 compacts: a first
// prompt with a call, then one after which the stand-in reports 17,000
// tokens of a 20,000-token window (pi's reserve set to 4,000 in
// settings.json), with cairn's extension running command; then one more
// prompt after the compaction. It returns the session file, the requests,
// the compaction entry and the time pi took to compact (from the entry
// before it to it).
func compactWith(t *testing.T, c pitest.Client, bin, command string, env ...string) (string, []fakeapi.Request, map[string]any, time.Duration) {
	api := fakeapi.New(compactTurns()...)
	t.Cleanup(api.Close)
	h := pitest.NewHome(t, api.URL)
	h.Env = env
	smallWindow(t, h, api.URL)
	cairnIn(t, h, bin, nil, "install", "pi", "--command", command)
	h.Run(t, c.Bin, "look at the work")
	files := h.Sessions(t)
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	api.SetInputTokens(17_000)
	h.Run(t, c.Bin, "fill the window", "--session", files[0])
	api.SetInputTokens(100)
	h.Run(t, c.Bin, "go on after it", "--session", files[0])
	compaction, took := compactionIn(t, files[0])
	return files[0], api.Requests(), compaction, took
}

// compactionIn returns the one compaction entry of a session file and the
// time pi took to compact (from the entry before it to it).
func compactionIn(t *testing.T, file string) (map[string]any, time.Duration) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var compaction map[string]any
	stamps := map[any]time.Time{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e map[string]any
		if json.Unmarshal([]byte(l), &e) != nil {
			continue
		}
		if ts, ok := e["timestamp"].(string); ok {
			stamps[e["id"]], _ = time.Parse(time.RFC3339Nano, ts)
		}
		if e["type"] == "compaction" {
			if compaction != nil {
				t.Errorf("pi compacted twice:\n%s", data)
			}
			compaction = e
		}
	}
	if compaction == nil {
		t.Fatalf("pi did not compact:\n%s", data)
	}
	return compaction, stamps[compaction["id"]].Sub(stamps[compaction["parentId"]])
}

// lastConversation returns the last request that offers tools (the
// conversation's, not a summary's), checked with fakeapi.CheckRequest but
// for the problems named in tolerate.
func lastConversation(t *testing.T, reqs []fakeapi.Request, tolerate ...string) *fakeapi.MessagesRequest {
	t.Helper()
	for i := len(reqs) - 1; i >= 0; i-- {
		var req fakeapi.MessagesRequest
		if json.Unmarshal(reqs[i].Body, &req) != nil || len(req.Tools) == 0 {
			continue
		}
	problems:
		for _, p := range fakeapi.CheckRequest(reqs[i].Body, 0) {
			for _, tol := range tolerate {
				if strings.Contains(p, tol) {
					t.Logf("request after compaction (pi's own): %s", p)
					continue problems
				}
			}
			t.Errorf("request after compaction: %s", p)
		}
		return &req
	}
	t.Fatal("no conversation request")
	return nil
}

// cwdOf is the working folder a pi session file names in its header.
func cwdOf(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	var h struct{ Cwd string }
	if err := json.Unmarshal([]byte(line), &h); err != nil {
		t.Fatal(err)
	}
	return h.Cwd
}

// summaryRequests counts pi's own summary requests (no tools offered).
func summaryRequests(reqs []fakeapi.Request) (n, bytes int) {
	for _, r := range reqs {
		var req fakeapi.MessagesRequest
		if json.Unmarshal(r.Body, &req) == nil && len(req.Tools) == 0 {
			n, bytes = n+1, bytes+len(r.Body)
		}
	}
	return n, bytes
}

// TestExtensionCompaction: with cairn's extension, pi 0.73.1's compaction
// is cairn's (fromHook, no summary request to the model) and the request
// after it opens with pi's compaction prefix holding cairn's revive, and
// gives cairn's start context again with the next prompt (the compaction
// dropped the copy given with the first); with
// cairn failing (the command is false), pi compacts by itself and the
// session goes on.
func TestExtensionCompaction(t *testing.T) {
	c := pitest.NewestClient(t)
	bin := buildCairn(t)

	t.Run("cairn", func(t *testing.T) {
		file, reqs, comp, took := compactWith(t, c, bin, bin)
		if comp["fromHook"] != true {
			t.Errorf("compaction not from the extension: %v", comp)
		}
		summary, _ := comp["summary"].(string)
		if !strings.Contains(summary, "look at the work") || !strings.Contains(summary, "fill the window") || !strings.Contains(summary, "LOOKED") {
			t.Errorf("cairn's summary lacks the session's prompt:\n%s", summary)
		}
		if n, _ := summaryRequests(reqs); n != 0 {
			t.Errorf("%d summary requests to the model, want 0", n)
		}
		req := lastConversation(t, reqs)
		first := strings.Join(req.Messages[0].Texts(), "\n")
		if req.Messages[0].Role != "user" || !strings.Contains(first, "compacted into the following summary") || !strings.Contains(first, summary[:min(len(summary), 200)]) {
			t.Errorf("first message is not cairn's compaction:\n%.600s", first)
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role != "user" || !strings.Contains(strings.Join(last.Texts(), " "), "go on after it") {
			t.Errorf("last message: %s %s", last.Role, last.Content)
		}
		// The compaction dropped the start context given with the first
		// prompt: pi, resuming, is given it again, once, with its prompt.
		if at := holding(*req, `<relay name="cairn prime">`); len(at) != 1 || at[0] != len(req.Messages)-1 {
			t.Errorf("start context after the compaction in messages %v of %d, want the last prompt's", at, len(req.Messages))
		}
		details, _ := comp["details"].(map[string]any)
		if _, ok := details["ms"].(float64); !ok || details["prepared"] == true {
			t.Errorf("details: %v (a 20,000 window leaves no room for a prepared one and pi's kept tokens)", comp["details"])
		}
		body := len(reqs[len(reqs)-1].Body)
		t.Logf("cairn's compaction: %v from the last entry to the compaction (the extension %v ms), summary %d bytes, no summary request; request after it %d messages, %d bytes (~%d tokens)", took, details["ms"], len(summary), len(req.Messages), body, fakeapi.EstimateTokens(body))
		t.Logf("cairn's summary:\n%s", summary)
		in, _ := json.Marshal(map[string]any{"session_file": file, "cwd": cwdOf(t, file), "window": 20000, "reserve_tokens": 4000})
		var times []time.Duration
		for range 7 {
			cmd := exec.Command(bin, "hook", "--agent", "pi", "compact")
			cmd.Dir, cmd.Stdin = cwdOf(t, file), bytes.NewReader(in)
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("hook: %v\n%s", err, out)
			}
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		t.Logf("cairn hook --agent pi compact, whole process: median %v of %v", times[len(times)/2], times)
	})

	slow := filepath.Join(t.TempDir(), "slow-cairn")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, fail := range []struct{ name, command string }{
		{"cairn fails", "false"},
		{"cairn answers no JSON", "echo"},
		{"cairn missing", filepath.Join(t.TempDir(), "no-cairn")},
		{"cairn too slow", slow},
	} {
		t.Run(fail.name, func(t *testing.T) { ownCompaction(t, c, bin, fail.command) })
	}
}

// ownCompaction checks that pi compacts by itself when the extension's
// command fails, and the session goes on.
func ownCompaction(t *testing.T, c pitest.Client, bin, command string) {
	_, reqs, comp, took := compactWith(t, c, bin, command, "CAIRN_PI_TIMEOUT_MS=1500")
	if comp["fromHook"] == true {
		t.Errorf("compaction from the extension though cairn failed: %v", comp)
	}
	n, size := summaryRequests(reqs)
	if n == 0 {
		t.Error("pi did not ask the model for its own summary")
	}
	// pi's own summary, a user message, is followed by the kept turn's
	// prompt: two user messages, which the Messages API joins.
	req := lastConversation(t, reqs, "two user messages in a row")
	last := req.Messages[len(req.Messages)-1]
	if last.Role != "user" || !strings.Contains(strings.Join(last.Texts(), " "), "go on after it") {
		t.Errorf("last message: %s %s", last.Role, last.Content)
	}
	body := len(reqs[len(reqs)-1].Body)
	t.Logf("pi's own compaction: %v from the last entry to the compaction, %d summary request(s) of %d bytes (~%d tokens); request after it %d messages, %d bytes (~%d tokens)", took, n, size, fakeapi.EstimateTokens(size), len(req.Messages), body, fakeapi.EstimateTokens(body))
}

// TestExtensionOldestPi: pi 0.27.9 has no extensions (its hooks live in
// .pi/hooks, with a "session" event of reason before_compact), so the
// installed .pi/extensions/cairn.ts is not loaded and the session runs as
// without it.
func TestExtensionOldestPi(t *testing.T) {
	c := pitest.Clients(t)[1]
	bin := buildCairn(t)
	api := fakeapi.New(fakeapi.Turn{Match: "look at the work", Steps: [][]fakeapi.Block{
		{{Type: "tool_use", Name: "bash", Input: map[string]any{"command": "echo LOOKED"}}},
		{{Type: "text", Text: "Looked."}},
	}})
	defer api.Close()
	h := pitest.NewHome(t, api.URL)
	cairnIn(t, h, bin, nil, "install", "pi", "--command", bin)
	out := h.Run(t, c.Bin, "look at the work")
	if !strings.Contains(string(out), "Looked.") {
		t.Errorf("pi %s: %s", c.Version, out)
	}
	lastConversation(t, api.Requests())
}

// TestExtensionPreparedCompaction (issue 45: cairn's compaction within
// pi's own compaction's time): past half the model's window, the extension
// prepares cairn's compaction while the model answers, of the session up
// to the entry before the branch's last assistant message, and pi
// 0.73.1's compaction is that one (details.prepared), keeping from that
// message: the summary holds the first prompt, not the second's reply,
// which pi sends after it as it was; the request after the compaction breaks no rule of
// the Messages API. Where pi's compaction point leaves no room for the
// summary and pi's kept tokens (TestExtensionCompaction's 20,000 window),
// the compaction is made when pi asks, not prepared.
func TestExtensionPreparedCompaction(t *testing.T) {
	c := pitest.NewestClient(t)
	bin := buildCairn(t)
	api := fakeapi.New(compactTurns()...)
	defer api.Close()
	h := pitest.NewHome(t, api.URL)
	cairnIn(t, h, bin, nil, "install", "pi", "--command", bin)
	api.SetInputTokens(120_000) // past half the 200,000 window: the next prompt prepares
	h.Run(t, c.Bin, "look at the work")
	files := h.Sessions(t)
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	api.SetInputTokens(190_000) // past pi's compaction point
	h.Run(t, c.Bin, "fill the window", "--session", files[0])
	api.SetInputTokens(100)
	h.Run(t, c.Bin, "go on after it", "--session", files[0])
	comp, took := compactionIn(t, files[0])
	details, _ := comp["details"].(map[string]any)
	if comp["fromHook"] != true || details["prepared"] != true {
		t.Fatalf("not cairn's prepared compaction: fromHook %v, details %v", comp["fromHook"], details)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// Kept from the first prompt's reply (prepared as the second prompt
	// began) or from the second's call (prepared at that step's end, done
	// before pi compacted).
	kept := map[any]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"role":"assistant"`) && (strings.Contains(l, "Looked: the work") || strings.Contains(l, "echo FULL")) {
			var e struct{ ID string }
			json.Unmarshal([]byte(l), &e)
			kept[e.ID] = true
		}
	}
	if !kept[comp["firstKeptEntryId"]] || len(kept) != 2 {
		t.Errorf("kept from %v, want the first prompt's reply or the second's call %v", comp["firstKeptEntryId"], kept)
	}
	summary, _ := comp["summary"].(string)
	if !strings.Contains(summary, "look at the work") || !strings.Contains(summary, "LOOKED") || strings.Contains(summary, "Filled.") {
		t.Errorf("the prepared summary is not of the session up to the first prompt's call:\n%s", summary)
	}
	req := lastConversation(t, api.Requests())
	var roles []string
	var text strings.Builder
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
		text.WriteString(strings.Join(m.Texts(), " ") + "\n")
	}
	for _, want := range []string{"compacted into the following summary", "Looked: the work", "fill the window", "Filled.", "go on after it"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the request after the compaction lacks %q (roles %v)", want, roles)
		}
	}
	t.Logf("cairn's prepared compaction: %v from the last entry to the compaction (the extension %v ms); request after it: roles %v", took, details["ms"], roles)
}
