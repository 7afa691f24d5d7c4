package http_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/opencode"

	"github.com/chromedp/chromedp"
)

// A harnessSample is a session another harness wrote, for the views to
// render as they render Claude Code's: imported with its adapter's
// Format, it must list, open, cut into steps, show its shell call as a
// command line and be found by search like any session.
type harnessSample struct {
	Agent   string           // the session's agent, as the list shows it
	Format  cairn.Transcript // the adapter that reads it
	Path    string           // the sample transcript
	Session string           // its session id
	Round   int              // a round with a shell call
	Command string           // what that call ran, as the page shows it after "$ "
	Output  string           // words of its output
	Query   string           // a word search finds in the session
	Prompt  string           // the round's prompt
	Tools   []string         // tools the round calls
}

// harnessSamples are the sessions of every harness cairn reads besides
// Claude Code (whose samples every other browser test uses). A harness
// added to cairn adds its sample here.
var harnessSamples = []harnessSample{
	{Agent: "codex", Format: codex.Format{}, Path: "../testdata/codex/three-rounds.jsonl", Session: "01a2079e-293e-75b1-bfbc-e62adfa6643a",
		Round: 1, Command: `printf 'go.mod\nmain.go\n'`, Output: "go.mod", Query: "files", Prompt: "please list the files", Tools: []string{"exec_command"}},
	{Agent: "codex", Format: codex.Format{}, Path: "../codex/testdata/compacted.jsonl", Session: "5b6c7d8e-2222-4333-8444-555566667777",
		Round: 2, Command: "go test ./...", Output: "FAIL health_test.go:9", Query: "health", Prompt: "now test it", Tools: []string{"shell"}},
	{Agent: "gemini", Format: gemini.Format{}, Path: "../gemini/testdata/0.61.0/session-2026-11-25T19-51-2de7feb0.jsonl", Session: "2de7feb0-2034-4b45-b09c-27de6f3aac9e",
		Round: 1, Command: "ls -1 && echo sample-shell-ok", Output: "sample-shell-ok", Query: "greeting", Prompt: "Please inspect the project.", Tools: []string{"run_shell_command", "read_file"}},
	{Agent: "opencode", Format: opencode.Format{}, Path: "../opencode/testdata/1.18.33/logs/ses_debb20e5bffev9M8FboiuT8S8K.jsonl", Session: "ses_debb20e5bffev9M8FboiuT8S8K",
		Round: 1, Command: "wc -l notes.txt", Output: "2 notes.txt", Query: "notes", Prompt: `"make the notes file"`, Tools: []string{"write", "bash"}},
}

// Sessions of every harness render in every view the same way: the list
// (with their harness), the timeline, an opened round's steps with their
// calls' rich views, and search, whose hit lands on the round.
func TestBrowserHarnesses(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	dir := Artifacts(t)
	for _, h := range harnessSamples {
		im := &inscribe.Importer{Store: st.importer.Store, Format: h.Format}
		// A sample may hold lines of a later client, kept raw and named.
		if fr, problems := im.ImportFile(context.Background(), h.Path); fr.Error != "" || fr.Stored == 0 {
			t.Fatalf("import %s: %s %v", h.Path, fr.Error, problems)
		}
	}
	for i, h := range harnessSamples {
		t.Run(fmt.Sprintf("%s-%d", h.Agent, i), func(t *testing.T) {
			// The list: its row, naming its harness.
			Step(t, ctx, "the list", chromedp.Navigate(s.URL()+"/#/?agent="+h.Agent))
			Wait(t, ctx, "its row", `document.querySelector('#sessions .session-row[data-id="`+h.Session+`"]')`)
			if got := Eval[string](t, ctx, `document.querySelector('#sessions .session-row[data-id="`+h.Session+`"] td:nth-child(2)').textContent`); got != h.Agent {
				t.Fatalf("the list names its harness %q", got)
			}

			// The timeline: its round's line starts with the prompt.
			Step(t, ctx, "the session", chromedp.Navigate(s.URL()+"/#/session/"+h.Session))
			Wait(t, ctx, "its rounds", fmt.Sprintf(`document.querySelector('.round[data-seq="%d"]')`, h.Round))
			if got := Eval[string](t, ctx, fmt.Sprintf(`document.querySelector('.round[data-seq="%d"] .line .index .prompt').textContent`, h.Round)); got != h.Prompt {
				t.Fatalf("round %d's line shows prompt %q, want %q", h.Round, got, h.Prompt)
			}
			if got := Eval[string](t, ctx, `document.getElementById("session-meta").textContent`); !strings.Contains(got, h.Agent) {
				t.Fatalf("the session's line %q does not name %s", got, h.Agent)
			}

			// The round: the prompt, steps with their refs, each call one
			// line with its key argument, opening on a command line and
			// the output.
			Step(t, ctx, "open the round", jsClick(fmt.Sprintf(`.round[data-seq="%d"] .line .index`, h.Round)))
			round := fmt.Sprintf(`.round[data-seq="%d"]`, h.Round)
			Wait(t, ctx, "its steps", `document.querySelector('`+round+` .body .step')`)
			if got := Eval[string](t, ctx, `document.querySelector('`+round+` .body .prompt .block.user .text').textContent`); got != h.Prompt {
				t.Fatalf("the prompt reads %q", got)
			}
			if got := Eval[string](t, ctx, `document.querySelector('`+round+` .step .step-ref').textContent`); got != fmt.Sprintf("%d.1", h.Round) {
				t.Fatalf("the first step's ref %q", got)
			}
			tools := Eval[string](t, ctx, `[...document.querySelectorAll('`+round+` details.call')].map(d => d.dataset.tool).join(" ")`)
			for _, tool := range h.Tools {
				if !strings.Contains(tools, tool) {
					t.Fatalf("calls %q, want %s", tools, tool)
				}
			}
			if n := Eval[int](t, ctx, `[...document.querySelectorAll('`+round+` details.call > summary')].filter(s => !s.querySelector(".arg")).length`); n != 0 {
				t.Fatalf("%d calls without their key argument", n)
			}
			Step(t, ctx, "open every call", chromedp.Evaluate[chromedp.Void](`for (const d of document.querySelectorAll('`+round+` details.call')) d.open = true`))
			cmds := Eval[string](t, ctx, `[...document.querySelectorAll('`+round+` details.call .rich pre.cmd')].map(p => p.textContent).join("\n")`)
			if !strings.Contains(cmds, "$ "+h.Command) {
				t.Fatalf("command lines %q, want $ %s", cmds, h.Command)
			}
			if got := Eval[string](t, ctx, `[...document.querySelectorAll('`+round+` details.call .rich')].map(r => r.textContent).join("\n")`); !strings.Contains(got, h.Output) || strings.Contains(got, "[object Object]") {
				t.Fatalf("the calls' views read %q, want the shell call's output %q", got, h.Output)
			}
			Screenshot(t, ctx, dir, fmt.Sprintf("harness-%s-%d", h.Agent, i))

			// Search: a hit in the session, which opens its round.
			Step(t, ctx, "search", chromedp.Navigate(s.URL()+"/#/search?q="+h.Query))
			hit := `[...document.querySelectorAll("#hits .hit a.hit-title")].find(a => a.getAttribute("href").includes("` + h.Session + `"))`
			Wait(t, ctx, "a hit in the session", hit)
			Step(t, ctx, "open it", chromedp.Evaluate[chromedp.Void](hit+`.click()`))
			Wait(t, ctx, "its round opened", `document.querySelector(".round .body .block")`)
		})
	}
}
