package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// TestSearchRoughEdges pins what a person typing a search expects: a word
// starting with '-' is searched, not read as a flag; a word begins the
// words it finds (migr finds migration); a word too short for that, which
// only begins words in the store, suggests its prefix query.
func TestSearchRoughEdges(t *testing.T) {
	c := newCLI(t)
	if out := c.run("search", "-migration"); !strings.Contains(out, tools+"  2 ") {
		t.Errorf("search -migration:\n%s", out)
	}
	if out := hitRounds(c.run("search", "-n", "1", "-migration")); strings.Count(out, "\n") != 0 || out == "" {
		t.Errorf("search -n 1 -migration: %q", out)
	}
	if out, err := c.try("search", "--sesion", "x", "migration"); err == nil || !strings.Contains(out, "not defined: -sesion") {
		t.Errorf("a mistyped --flag is no query word: %v\n%s", err, out)
	}
	if out := c.run("search", "migr"); !strings.Contains(out, "**migration**") {
		t.Errorf("search migr:\n%s", out)
	}
	out := c.run("search", "mi")
	if !strings.Contains(out, `No round matches "mi".`) || !strings.Contains(out, "Words that begin so do match: cairn search 'mi*'") {
		t.Errorf("search mi:\n%s", out)
	}
	if out := c.run("search", "--json", "mi"); !strings.Contains(out, `"suggest":"mi*"`) {
		t.Errorf("search --json mi:\n%s", out)
	}
	if out := c.run("search", "zyzzyva"); strings.Contains(out, "begin so") {
		t.Errorf("a suggestion that finds nothing:\n%s", out)
	}
}

// TestSurgicalSessionsApart pins that the sessions cairn's own surgery cut
// neither crowd the session list nor repeat search hits unless asked, and
// that the two token figures say what they count.
func TestSurgicalSessionsApart(t *testing.T) {
	c := newCLI(t)
	before := c.run("search", "migration")
	c.run("compress-before", tools, "3", "--cwd", t.TempDir())
	out := c.run("sessions")
	if strings.Count(out, "5f0c2a1e-") != 4 || !strings.Contains(out, "(1 cut by surgery not listed: --surgical lists them)") {
		t.Errorf("sessions:\n%s", out)
	}
	if !strings.Contains(out, "API TOKENS") {
		t.Errorf("sessions does not say its tokens are API usage:\n%s", out)
	}
	if out := c.run("sessions", "--surgical"); strings.Count(out, "\n") != 6 || strings.Contains(out, "not listed") {
		t.Errorf("sessions --surgical:\n%s", out)
	}
	// The same rounds are found (which block's snippet stands for a round
	// may differ between equally ranked blocks).
	if after := c.run("search", "migration"); hitRounds(after) != hitRounds(before) {
		t.Errorf("search after a surgical export:\n%s\nbefore:\n%s", after, before)
	}
	if out := c.run("search", "--surgical", "migration"); out == before {
		t.Errorf("search --surgical finds no more than before:\n%s", out)
	}
	if out := c.run("advise", tools); !strings.Contains(out, "of the way to where the client compacts (~") || !strings.Contains(out, "; window ") {
		t.Errorf("advise does not say what its tokens are measured against (the compaction point, in the window):\n%s", out)
	}
}

// hitRounds returns the session and ROUND.STEP of each hit of search's
// output.
func hitRounds(out string) string {
	var rounds []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) >= 4 && len(f[0]) >= 36 && !strings.HasPrefix(l, " ") {
			rounds = append(rounds, f[0]+" "+f[1])
		}
	}
	return strings.Join(rounds, "\n")
}

// TestAgentLists pins that the commands that keep one harness's sessions
// name all four in their help, the --agent flag's line included.
func TestAgentLists(t *testing.T) {
	for _, cmd := range []string{"search", "sessions"} {
		help := helpOf(t, cmd)
		_, flag, ok := strings.Cut(help, "-agent string")
		if !ok {
			t.Fatalf("%s -h has no --agent:\n%s", cmd, help)
		}
		flag, _, _ = strings.Cut(flag, "\n  -")
		for _, name := range []string{cairn.AgentClaudeCode, cairn.AgentCodex, cairn.AgentGemini, cairn.AgentOpencode} {
			if !strings.Contains(flag, name) {
				t.Errorf("%s -h: --agent does not list %s:%s", cmd, name, flag)
			}
		}
	}
	if !strings.Contains(helpOf(t, "search"), "Gemini CLI or opencode") {
		t.Errorf("search -h does not name every harness --agent keeps")
	}
}

// helpOf returns what cairn CMD -h prints.
func helpOf(t *testing.T, cmd string) string {
	t.Helper()
	var out strings.Builder
	m := NewMain(strings.NewReader(""), &out, &out)
	_ = m.Run(context.Background(), []string{cmd, "-h"})
	return out.String()
}

// TestContinuedSurgicalSession pins that work done in a session cairn's
// surgery wrote, once the user resumed it, is theirs: the default search
// finds it and sessions lists the session, while the rounds the export
// copied from its source stay out of both as before.
func TestContinuedSurgicalSession(t *testing.T) {
	c := newCLI(t)
	before := c.run("search", "migration")
	out := c.run("compress-before", tools, "3", "--cwd", t.TempDir())
	path := regexp.MustCompile(`wrote (\S+\.jsonl)`).FindStringSubmatch(out)
	if path == nil {
		t.Fatalf("compress-before:\n%s", out)
	}
	cut := strings.TrimSuffix(filepath.Base(path[1]), ".jsonl")
	if out := c.run("search", "zanzibar"); strings.Contains(out, cut) {
		t.Fatalf("found before the session was continued:\n%s", out)
	}
	continueClaudeSession(t, path[1], "Now add the zanzibar rate limit.", "Added the zanzibar limit.")
	c.run("import", path[1])
	// The export is round 1, the work after it round 2.
	if out := c.run("search", "zanzibar"); !strings.Contains(out, cut+"  2") {
		t.Errorf("the default search misses the work done in the continued session %s:\n%s", cut, out)
	}
	if out := c.run("sessions"); !strings.Contains(out, cut) {
		t.Errorf("sessions leaves the continued session out:\n%s", out)
	}
	// The exported rounds repeat the source's: still left out.
	if after := c.run("search", "-n", "50", "migration"); hitRounds(after) != hitRounds(before) {
		t.Errorf("the default search finds the rounds the export copied:\n%s\nbefore:\n%s", after, before)
	}
}

// continueClaudeSession appends a round to a Claude Code session file as
// the client does when the user resumes it: a prompt and a reply, now,
// chained to the file's last line.
func continueClaudeSession(t *testing.T, path, prompt, reply string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var last struct {
		UUID      string `json:"uuid"`
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	user := map[string]any{"parentUuid": last.UUID, "isSidechain": false, "type": "user", "uuid": "c0ffee00-0000-4000-8000-000000000001",
		"sessionId": last.SessionID, "cwd": last.Cwd, "userType": "external", "timestamp": now.Format(time.RFC3339Nano),
		"message": map[string]any{"role": "user", "content": prompt}}
	asst := map[string]any{"parentUuid": "c0ffee00-0000-4000-8000-000000000001", "isSidechain": false, "type": "assistant",
		"uuid": "c0ffee00-0000-4000-8000-000000000002", "sessionId": last.SessionID, "cwd": last.Cwd, "userType": "external",
		"timestamp": now.Add(time.Second).Format(time.RFC3339Nano),
		"message": map[string]any{"id": "msg_c0ffee", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
			"content": []any{map[string]any{"type": "text", "text": reply}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range []any{user, asst} {
		b, _ := json.Marshal(l)
		if _, err := f.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
}
