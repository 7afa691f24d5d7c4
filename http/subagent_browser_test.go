package http_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// orphanSession ran a subagent whose transcript was never imported.
const orphanSession = "6a7b0000-0000-4000-8000-00000000a9e7"

// A subagent opens in place (issue 46, point 8): the call that ran it
// holds its session, loaded when opened, its steps apart from the
// parent's, with a link to it; a subagent the store lacks is said to be
// missing, with no link.
func TestBrowserSubagentInPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustClaudeSession(t, st, orphanSession, []map[string]any{
		{"name": "Task", "input": map[string]any{"description": "Look around", "prompt": "List the files.", "subagent_type": "Explore"},
			"result": "Found 3 files.", "toolUseResult": map[string]any{"agentId": "a0000000000000042", "status": "completed"}},
	})

	Step(t, ctx, "open session B", chromedp.Navigate(s.URL()+"/#/session/"+sessionB))
	Wait(t, ctx, "rounds listed", `document.querySelectorAll("#timeline .round").length > 1`)
	seq := evalAwait(t, ctx, `(async () => { for (const r of view.rounds) { const d = await api("GET", "/api/sessions/"+view.id+"/rounds/"+r.seq); if (d.blocks.some(b => b.tool_name === "Agent" && b.kind === "tool-use")) return String(r.seq); } return "" })()`)
	if seq == "" {
		t.Fatal("no round of session B calls Agent")
	}
	round := `document.querySelector('.round[data-seq="` + seq + `"]')`
	Step(t, ctx, "open the round", chromedp.Click(chromedp.CSS(`.round[data-seq="`+seq+`"] .toggle`)))
	Wait(t, ctx, "the Agent call", round+`.querySelector('details.call[data-tool=Agent]')`)
	steps := Eval[int](t, ctx, round+`.querySelectorAll(".step").length`)
	Step(t, ctx, "open the call", jsClick(`.round[data-seq="`+seq+`"] details.call[data-tool=Agent] summary`))
	Wait(t, ctx, "the subagent in place", round+`.querySelector("details.subagent-inline")`)
	if got := Eval[string](t, ctx, round+`.querySelector(".subagent-link").getAttribute("href")`); got != "#/session/"+subagentB {
		t.Fatalf("the subagent's link %q, want its session %s", got, subagentB)
	}
	if got := Eval[string](t, ctx, round+`.querySelector("details.subagent-inline summary").textContent`); !strings.HasPrefix(got, "the subagent's session · 1 round") {
		t.Errorf("the subagent's summary %q", got)
	}
	Step(t, ctx, "open the subagent", jsClick(`.round[data-seq="`+seq+`"] details.subagent-inline summary`))
	Wait(t, ctx, "the subagent's steps", round+`.querySelectorAll("details.subagent-inline .sub-step").length > 0`)
	// Its calls are the subagent's own (Bash, Read), inside the parent's
	// call; the parent's steps are as many as before.
	tools := Eval[string](t, ctx, `[...`+round+`.querySelectorAll("details.subagent-inline details.call")].map(d => d.dataset.tool).join(" ")`)
	if !strings.Contains(tools, "Bash") || !strings.Contains(tools, "Read") {
		t.Errorf("the subagent's calls %q, want its Bash and Read", tools)
	}
	if got := Eval[int](t, ctx, round+`.querySelectorAll(".step").length`); got != steps {
		t.Errorf("%d steps in the round once the subagent is open, %d before", got, steps)
	}
	Screenshot(t, ctx, Artifacts(t), "subagent-inline")

	// A subagent not imported: said so, no link to a page that is not there.
	Step(t, ctx, "open the orphan", chromedp.Navigate(s.URL()+"/#/session/"+orphanSession+"?round=1"))
	Wait(t, ctx, "round 1 open", `document.querySelector('.round[data-seq="1"] details.call[data-tool=Task]')`)
	Step(t, ctx, "open the call", jsClick(`.round[data-seq="1"] details.call[data-tool=Task] summary`))
	Wait(t, ctx, "the missing subagent named", `document.querySelector('.round[data-seq="1"] .subagent-missing')`)
	if got := Eval[string](t, ctx, `document.querySelector('.round[data-seq="1"] .subagent-missing').textContent`); !strings.Contains(got, "agent a0000000000000042) was not imported") {
		t.Errorf("the missing subagent: %q", got)
	}
	if n := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="1"] a.subagent-link').length`); n != 0 {
		t.Errorf("%d links to a subagent the store lacks", n)
	}
}
