package http_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/gemini"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/inscribe"

	"github.com/chromedp/chromedp"
)

// A Gemini CLI session whose call ran a subagent (0.61 records the
// subagent's session id on the call, agentId; the subagent's file is
// chats/<parent>/<agentId>.jsonl), as the client writes them.
const (
	geminiParent = "3c1d0000-0000-4000-8000-00000000a001"
	geminiChild  = "3c1d0000-0000-4000-8000-00000000c002"
)

var geminiParentLines = `{"sessionId":"` + geminiParent + `","projectHash":"ab","startTime":"2026-11-25T10:00:00.000Z","lastUpdated":"2026-11-25T10:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-11-25T10:00:01.000Z","type":"user","content":[{"text":"Find where the config is read."}]}
{"id":"g1","timestamp":"2026-11-25T10:00:02.000Z","type":"gemini","content":"","model":"gemini-3.1-pro-preview","toolCalls":[{"id":"codebase_investigator__call_1","name":"codebase_investigator","args":{"objective":"Find where the config is read."},"result":[{"functionResponse":{"id":"codebase_investigator__call_1","name":"codebase_investigator","response":{"output":"Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL\nResult:\nconfig.go reads it."}}}],"status":"success","timestamp":"2026-11-25T10:00:09.000Z","agentId":"` + geminiChild + `"}]}
{"id":"g2","timestamp":"2026-11-25T10:00:10.000Z","type":"gemini","content":"It is read in config.go.","model":"gemini-3.1-pro-preview"}
`

var geminiChildLines = `{"sessionId":"` + geminiChild + `","projectHash":"ab","startTime":"2026-11-25T10:00:02.500Z","lastUpdated":"2026-11-25T10:00:02.500Z","kind":"subagent"}
{"id":"su1","timestamp":"2026-11-25T10:00:03.000Z","type":"user","content":[{"text":"Find where the config is read."}]}
{"id":"sg1","timestamp":"2026-11-25T10:00:04.000Z","type":"gemini","content":"","model":"gemini-3.1-pro-preview","toolCalls":[{"id":"grep_search__call_2","name":"grep_search","args":{"pattern":"ReadConfig"},"result":[{"functionResponse":{"id":"grep_search__call_2","name":"grep_search","response":{"output":"config.go:12: func ReadConfig"}}}],"status":"success","timestamp":"2026-11-25T10:00:05.000Z"}]}
{"id":"sg2","timestamp":"2026-11-25T10:00:06.000Z","type":"gemini","content":"config.go reads it.","model":"gemini-3.1-pro-preview"}
`

// A subagent of another harness opens in place too (issue 46, point 8):
// Gemini CLI's call, named by its agent (codebase_investigator), holds
// the subagent's session its record names.
func TestBrowserGeminiSubagentInPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	chats := filepath.Join(t.TempDir(), ".gemini", "tmp", "work", "chats")
	parent := filepath.Join(chats, "session-2026-11-25T10-00-3c1d0000.jsonl")
	child := filepath.Join(chats, geminiParent, geminiChild+".jsonl")
	if err := os.MkdirAll(filepath.Dir(child), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, data := range map[string]string{parent: geminiParentLines, child: geminiChildLines} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	importFiles(t, st, gemini.Format{}, parent, child)
	call := subagentInPlace(t, ctx, s, geminiParent, "codebase_investigator", geminiChild, "grep_search")
	if got := Eval[string](t, ctx, call+`.querySelector("details.think pre.input").textContent`); !strings.Contains(got, `"objective": "Find where the config is read."`) {
		t.Errorf("the call's input %q", got)
	}
	Screenshot(t, ctx, Artifacts(t), "gemini-subagent-inline")
}

// importFiles imports paths with the reader of format.
func importFiles(t *testing.T, st *Store, format cairn.Transcript, paths ...string) {
	t.Helper()
	im := &inscribe.Importer{Store: st.importer.Store, Format: format}
	for _, path := range paths {
		if fr, problems := im.ImportFile(context.Background(), path); fr.Error != "" || fr.Stored == 0 {
			t.Fatalf("import %s: %s %v", path, fr.Error, problems)
		}
	}
}

// subagentInPlace opens round 1 of parent and its call of tool, and checks
// that the call holds the subagent child in place, linked, whose steps
// call calls (the tools' names, space-separated); it returns the call's
// element as an expression.
func subagentInPlace(t *testing.T, ctx context.Context, s *cairnhttp.Server, parent, tool, child, calls string) string {
	t.Helper()
	Step(t, ctx, "open the parent", chromedp.Navigate(s.URL()+"/#/session/"+parent+"?round=1"))
	call := `document.querySelector('.round[data-seq="1"] details.call[data-tool="` + tool + `"]')`
	Wait(t, ctx, "the call", call)
	Step(t, ctx, "open the call", jsClick(`.round[data-seq="1"] details.call[data-tool="`+tool+`"] summary`))
	Wait(t, ctx, "the subagent in place", call+`.querySelector("details.subagent-inline")`)
	if got := Eval[string](t, ctx, call+`.querySelector(".subagent-link").getAttribute("href")`); got != "#/session/"+child {
		t.Fatalf("the subagent's link %q", got)
	}
	Step(t, ctx, "open the subagent", jsClick(`.round[data-seq="1"] details.subagent-inline summary`))
	Wait(t, ctx, "the subagent's steps", call+`.querySelectorAll("details.subagent-inline .sub-step").length > 0`)
	if got := Eval[string](t, ctx, `[...`+call+`.querySelectorAll("details.subagent-inline details.call")].map(d => d.dataset.tool).join(" ")`); got != calls {
		t.Errorf("the subagent's calls %q, want %q", got, calls)
	}
	return call
}

// Rollouts the real Codex CLI 0.169.0 wrote (internal/codextest
// TestSubagent): a thread that spawned a sub-agent with multi_agent_v1's
// spawn_agent, whose output names the sub-agent's thread (agent_id), and
// the sub-agent's own rollout, whose session_meta names its parent.
const (
	codexSubagentDir = "../testdata/codex/subagent"
	codexParent      = "01a22247-405e-7f40-8891-fc86939e715c"
	codexChild       = "01a22247-40d1-7911-bdd1-dd0b58d0410e"
)

// A Codex sub-agent opens in place too: the spawn_agent call holds the
// sub-agent's thread, its exec_command and answer, linked by what the two
// rollouts say (no state database).
func TestBrowserCodexSubagentInPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	paths, _ := filepath.Glob(filepath.Join(codexSubagentDir, "*.jsonl"))
	if len(paths) != 2 {
		t.Fatalf("rollouts in %s: %v", codexSubagentDir, paths)
	}
	importFiles(t, st, codex.Format{}, paths...)
	call := subagentInPlace(t, ctx, s, codexParent, "spawn_agent", codexChild, "exec_command")
	if got := Eval[string](t, ctx, call+`.querySelector("details.subagent-inline").textContent`); !strings.Contains(got, "notes.txt has 2 lines.") {
		t.Errorf("the subagent's answer is not shown: %q", got)
	}
	Screenshot(t, ctx, Artifacts(t), "codex-subagent-inline")
}
