package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"
)

// startServe runs "cairn serve" with args over store, with Claude Code's
// folder at claudeDir, and returns the lines it printed before "Ctrl-C".
func startServe(tb testing.TB, store, claudeDir string, args ...string) []string {
	tb.Helper()
	r, w := io.Pipe()
	m := NewMain(strings.NewReader(""), w, io.Discard)
	m.Getenv = func(k string) string {
		switch k {
		case "CAIRN_STORE":
			return store
		case "CLAUDE_CONFIG_DIR":
			return claudeDir
		}
		return ""
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, append([]string{"serve"}, args...)); w.Close() }()
	tb.Cleanup(func() {
		cancel()
		go io.Copy(io.Discard, r)
		if err := <-done; err != nil {
			tb.Errorf("serve: %v", err)
		}
	})
	var lines []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.HasPrefix(sc.Text(), "Ctrl-C") {
			return lines
		}
	}
	tb.Fatalf("serve stopped: %v (printed %q)", <-done, lines)
	return nil
}

var urlPattern = regexp.MustCompile(`http://[^\s/]+`)

func post(tb testing.TB, url, body string) (int, string) {
	tb.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set(cairnhttp.CSRFHeader, "1")
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	buf, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(buf)
}

// The viewer's actions call what the commands call: a split from the page
// writes resumable sessions where "cairn split" does and registers them.
func TestServe(t *testing.T) {
	store := filepath.Join(t.TempDir(), "cairn.db")
	claudeDir := t.TempDir()
	if _, _, err := runMain(t, store, "import", samples); err != nil {
		t.Fatal(err)
	}
	out := startServe(t, store, claudeDir, "--addr", "127.0.0.1:0")
	base := urlPattern.FindString(out[0])
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("serve printed %q", out)
	}
	const a = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"
	code, body := post(t, base+"/api/sessions/"+a+"/split", `{"map": "2-3=db", "rest": "rest"}`)
	if code != 200 {
		t.Fatalf("split: %d %s", code, body)
	}
	var got cairnhttp.SurgeryResponse
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 2 {
		t.Fatalf("split made %d sessions, want 2", len(got.Results))
	}
	for _, e := range got.Results {
		if !strings.HasPrefix(e.Path, filepath.Join(claudeDir, "projects")) {
			t.Errorf("wrote %s, want it under %s/projects", e.Path, claudeDir)
		}
		if _, err := os.Stat(e.Path); err != nil {
			t.Error(err)
		}
		if !strings.HasSuffix(e.Resume, "claude --resume "+e.ID) {
			t.Errorf("resume: %q", e.Resume)
		}
	}
	out2, _, err := runMain(t, store, "sessions", "--json", "--subagents", "--surgical", "-n", "0")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Sessions []*cairn.Session }
	if err := json.Unmarshal([]byte(out2), &list); err != nil {
		t.Fatal(err)
	}
	var children int
	for _, s := range list.Sessions {
		if s.Lineage == cairn.LineageSurgery && s.Parent == a && s.Operation == cairn.OpSplit {
			children++
		}
	}
	if children != 2 {
		t.Fatalf("%d split children of %s in the store, want 2", children, a)
	}
}

// Beyond loopback, serve prints a token and a one-time login URL, and
// refuses requests without the token.
func TestServe_Token(t *testing.T) {
	store := filepath.Join(t.TempDir(), "cairn.db")
	out := startServe(t, store, t.TempDir(), "--addr", "0.0.0.0:0")
	text := strings.Join(out, "\n")
	token := regexp.MustCompile(`token \(shown once\): ([0-9a-f]{64})`).FindStringSubmatch(text)
	login := regexp.MustCompile(`http://\S+/login\?code=\S+`).FindString(text)
	if token == nil || login == "" {
		t.Fatalf("serve printed %q: want a token and a login URL", text)
	}
	base := urlPattern.FindString(login)
	resp, err := http.Get(base + "/api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without the token: %d, want 401", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", base+"/api/sessions", nil)
	req.Header.Set("Authorization", "Bearer "+token[1])
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("with the token: %d, want 200", resp.StatusCode)
	}
}

// With --watch, serve imports a transcript as it grows and tells open
// pages within a second, over server-sent events.
func TestServe_Watch(t *testing.T) {
	store := filepath.Join(t.TempDir(), "cairn.db")
	watched := t.TempDir()
	const a = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"
	all, err := os.ReadFile(filepath.Join(samples, a+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(all), "\n")
	half := len(lines) / 2
	file := filepath.Join(watched, a+".jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines[:half], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := startServe(t, store, t.TempDir(), "--addr", "127.0.0.1:0", "--watch", watched)
	base := urlPattern.FindString(out[0])
	if !strings.Contains(strings.Join(out, "\n"), "watching "+watched) {
		t.Fatalf("serve printed %q", out)
	}
	rounds := func() int {
		resp, err := http.Get(base + "/api/sessions/" + a)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got cairnhttp.SessionResponse
		if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&got) != nil {
			return -1
		}
		return got.Session.Rounds
	}
	deadline := time.Now().Add(60 * time.Second) // only a failure waits it out
	for rounds() < 1 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	before := rounds()
	if before < 1 {
		t.Fatalf("the first half was not imported: %d rounds", before)
	}

	// A page listens; the session grows.
	resp, err := http.Get(base + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("events: %s", ct)
	}
	events := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- data
			}
		}
	}()
	start := time.Now()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Join(lines[half:], "")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	select {
	case data := <-events:
		var ev cairnhttp.Event
		if err := json.Unmarshal([]byte(data), &ev); err != nil || len(ev.Sessions) != 1 || ev.Sessions[0] != a {
			t.Fatalf("event %q", data)
		}
	case <-time.After(60 * time.Second): // only a failure waits it out
		t.Fatal("no event within 60 s of the session growing")
	}
	// A second, the viewer's promise; five under CI, which runs the race
	// detector on a machine shared with other jobs.
	took, bound := time.Since(start), time.Second
	if os.Getenv("CI") != "" {
		bound *= 5
	}
	if took > bound {
		t.Fatalf("the event came %v after the session grew, want under %v", took, bound)
	}
	if after := rounds(); after <= before {
		t.Fatalf("%d rounds after the event, %d before", after, before)
	}
	t.Logf("grown session pushed in %v", took)
}

// The viewer's preview shows the size "cairn revive" prints for the same
// cut of the same store, and refuses to write again the child the CLI
// wrote, naming it with the resume command the CLI printed.
func TestServe_SameAsCLI(t *testing.T) {
	store := filepath.Join(t.TempDir(), "cairn.db")
	claudeDir := t.TempDir()
	if _, _, err := runMain(t, store, "import", samples); err != nil {
		t.Fatal(err)
	}
	base := urlPattern.FindString(startServe(t, store, claudeDir, "--addr", "127.0.0.1:0")[0])
	const a = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"
	preview := func() *cairnhttp.Exported {
		code, body := post(t, base+"/api/sessions/"+a+"/revive", `{"before": "3", "preview": true}`)
		var got cairnhttp.SurgeryResponse
		if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil || len(got.Results) != 1 {
			t.Fatalf("preview: %d %s", code, body)
		}
		return got.Results[0]
	}
	e := preview()

	var stdout bytes.Buffer
	m := NewMain(strings.NewReader(""), &stdout, io.Discard)
	m.Getenv = func(k string) string {
		return map[string]string{"CAIRN_STORE": store, "CLAUDE_CONFIG_DIR": claudeDir}[k]
	}
	if err := m.Run(context.Background(), []string{"revive", "--before", "3", a}); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	size := regexp.MustCompile(`size: ~(\d+) tokens the client sends \(budget (\d+), (\d+)%\)`).FindStringSubmatch(out)
	wrote := regexp.MustCompile(`wrote \S*/([0-9a-f-]{36})\.jsonl`).FindStringSubmatch(out)
	resume := regexp.MustCompile(`resume: (.*)`).FindStringSubmatch(out)
	if size == nil || wrote == nil || resume == nil {
		t.Fatalf("cairn revive printed:\n%s", out)
	}
	if got := fmt.Sprintf("~%d tokens the client sends (budget %d, %d%%)", e.Tokens, e.Budget, e.Percent); got != size[0][len("size: "):] {
		t.Fatalf("preview: %s; cairn revive: %s", got, size[0])
	}

	if e := preview(); e.Existing != wrote[1] || e.ExistingResume != resume[1] {
		t.Fatalf("preview after the CLI wrote %s (%s): existing %q (%q)", wrote[1], resume[1], e.Existing, e.ExistingResume)
	}
	code, body := post(t, base+"/api/sessions/"+a+"/revive", `{"before": "3"}`)
	var refused struct{ Error string }
	if err := json.Unmarshal([]byte(body), &refused); err != nil || code != 409 || !strings.Contains(refused.Error, "Session "+wrote[1]) || !strings.HasSuffix(refused.Error, "Resume it: "+resume[1]) {
		t.Fatalf("writing the CLI's child again: %d %s", code, body)
	}
}

// TestServe_RetentionSameAsCLI: the viewer's retention report is the one
// `cairn eval retention --json` prints, figure for figure, and an unknown
// session is a 404.
func TestServe_RetentionSameAsCLI(t *testing.T) {
	store := filepath.Join(t.TempDir(), "cairn.db")
	if _, _, err := runMain(t, store, "import", samples); err != nil {
		t.Fatal(err)
	}
	const a = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"
	base := urlPattern.FindString(startServe(t, store, t.TempDir(), "--addr", "127.0.0.1:0")[0])
	res, err := http.Get(base + "/api/sessions/" + a + "/retention")
	if err != nil {
		t.Fatal(err)
	}
	viewer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	cli, _, err := runMain(t, store, "eval", "retention", "--json", a)
	if err != nil {
		t.Fatal(err)
	}
	type report struct {
		Scores []struct {
			Variant string
			Tokens  int
			Strict  struct{ Probes, InContext, OneHop, Lost int } `json:"strict"`
		}
	}
	var v, c report
	if res.StatusCode != 200 || json.Unmarshal(viewer, &v) != nil || json.Unmarshal([]byte(cli), &c) != nil || len(c.Scores) == 0 {
		t.Fatalf("viewer %d %.200s\ncli %.200s", res.StatusCode, viewer, cli)
	}
	if fmt.Sprint(v.Scores) != fmt.Sprint(c.Scores) {
		t.Errorf("viewer scores %v, CLI %v", v.Scores, c.Scores)
	}
	res, err = http.Get(base + "/api/sessions/00000000-0000-4000-8000-00000000dead/retention")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("an unknown session: %d, want 404", res.StatusCode)
	}
}

// serve --watch without a path on a machine where Claude Code has not run
// yet serves the store, says so, and imports the folder's transcripts once
// it appears (it exited: "no transcripts at …").
func TestServe_WatchAbsent(t *testing.T) {
	store := filepath.Join(t.TempDir(), "cairn.db")
	claude := filepath.Join(t.TempDir(), "claude")
	out := startServe(t, store, claude, "--addr", "127.0.0.1:0", "--watch")
	projects := filepath.Join(claude, "projects")
	if !strings.Contains(strings.Join(out, "\n"), "no transcripts at "+projects+" yet") {
		t.Fatalf("serve printed %q", out)
	}
	base := urlPattern.FindString(out[0])
	resp, err := http.Get(base + "/api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("sessions: %d", resp.StatusCode)
	}

	const a = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"
	data, err := os.ReadFile(filepath.Join(samples, a+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(projects, "-tmp-proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, a+".jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second) // only a failure waits it out
	for {
		resp, err := http.Get(base + "/api/sessions/" + a)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 200 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session written once the folder appeared was not imported: %d", resp.StatusCode)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A path given to --watch that does not exist is a mistake, named at once.
func TestServe_WatchMissingPath(t *testing.T) {
	var out, errOut strings.Builder
	m := NewMain(strings.NewReader(""), &out, &errOut)
	store := filepath.Join(t.TempDir(), "cairn.db")
	m.Getenv = func(k string) string {
		if k == "CAIRN_STORE" {
			return store
		}
		return ""
	}
	missing := filepath.Join(t.TempDir(), "nope")
	err := m.Run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--watch", missing})
	if err == nil || !strings.Contains(err.Error(), "watch "+missing) {
		t.Fatalf("serve --watch %s: %v (printed %q)", missing, err, out.String())
	}
}
