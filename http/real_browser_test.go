package http_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Issue 46's points on the long real session, as a person sees them: a
// real Edit as a diff, a real answer's markdown, a real revive's preview.

// openEdits opens round 1 of the long session and every Edit call in it,
// and waits for the one whose diff holds marker: a selector expression
// for that call.
func openEdits(t *testing.T, ctx context.Context, url, marker string) string {
	t.Helper()
	Step(t, ctx, "open round 1", chromedp.Navigate(url+"/#/session/"+longSession+"?round=1"))
	Wait(t, ctx, "round 1's steps", `document.querySelectorAll('.round[data-seq="1"] .step').length > 50`)
	edits := `[...document.querySelectorAll('.round[data-seq="1"] details.call[data-tool="Edit"]')]`
	Step(t, ctx, "open the Edit calls", chromedp.Evaluate[chromedp.Void](edits+`.forEach(d => { d.open = true })`))
	call := edits + `.find(d => [...d.querySelectorAll("pre")].some(p => p.textContent.includes(` + jsString(marker) + `)))`
	Wait(t, ctx, "the edit's diff", call+` && `+call+`.querySelector("pre.diff")`)
	return call
}

// A real Edit (the long session's round 1, an alias line gaining a name)
// is a diff: one removed and one added line, the added word marked.
func TestBrowserRealEditDiff(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	call := openEdits(t, ctx, s.URL(), "alias Spotter.Transcripts.{Annotation, Commit,")
	Screenshot(t, ctx, Artifacts(t), "real-edit-diff")
	for _, c := range []struct{ what, expr, want string }{
		{"one removed line", call + `.querySelectorAll("pre.diff .del").length`, "1"},
		{"one added line", call + `.querySelectorAll("pre.diff .add").length`, "1"},
		{"the removed line", call + `.querySelector("pre.diff .del").textContent`, "-   alias Spotter.Transcripts.{Annotation, Commit, Message"},
		{"the added line", call + `.querySelector("pre.diff .add").textContent`, "+   alias Spotter.Transcripts.{Annotation, AnnotationMessageRef, Commit"},
		{"the added word marked", `[...` + call + `.querySelectorAll("pre.diff .add .wd")].map(w => w.textContent).join("")`, "AnnotationMessageRef"},
		{"nothing marked on the removed line", `[...` + call + `.querySelectorAll("pre.diff .del .wd")].map(w => w.textContent).join("").trim() || "none"`, "none"},
	} {
		if got := Eval[string](t, ctx, `String(`+c.expr+`)`); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.what, got, c.want)
		}
	}
}

// A real answer's markdown (the long session's last round): a fence
// without a language (git status) uncoloured with a copy button, and the
// answer before it (a summary) with its lists, bold and code.
func TestBrowserRealMarkdown(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	Step(t, ctx, "open the long session", chromedp.Navigate(s.URL()+"/#/session/"+longSession))
	Wait(t, ctx, "rounds listed", `document.querySelectorAll("#timeline .round").length > 1`)
	last := Eval[string](t, ctx, `String(Math.max(...[...document.querySelectorAll("#timeline .round")].map(r => Number(r.dataset.seq))))`)
	Step(t, ctx, "open the last round", chromedp.Navigate(s.URL()+"/#/session/"+longSession+"?round="+last))
	md := `[...document.querySelectorAll('.round[data-seq="` + last + `"] .block.assistant .md')].find(m => m.textContent.includes("everything is pushed"))`
	Wait(t, ctx, "the answer", md)
	Screenshot(t, ctx, Artifacts(t), "real-markdown")
	for _, c := range []struct{ what, expr, want string }{
		{"the fence as code", md + `.querySelector("pre.code").textContent`, "On branch spotter-gqc\nYour branch is up to date with 'origin/spotter-gqc'.\nnothing to commit, working tree clean"},
		{"no keywords in git's output", md + `.querySelectorAll("pre.code .tok-k").length`, "0"},
		{"a copy button", md + `.querySelectorAll(".codebox button.copy-code").length`, "1"},
		{"code in prose", md + `.querySelector("p code").textContent`, "origin/spotter-gqc"},
	} {
		if got := Eval[string](t, ctx, `String(`+c.expr+`)`); got != c.want {
			t.Errorf("%s: %q, want %q", c.what, got, c.want)
		}
	}
}

// A real revive (the long session, before its last round) previewed in
// words: one sentence first, then the plan in sentences.
func TestBrowserRealRevive(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	Step(t, ctx, "open the long session", chromedp.Navigate(s.URL()+"/#/session/"+longSession))
	Wait(t, ctx, "rounds listed", `document.querySelectorAll("#timeline .round").length > 1`)
	last := Eval[string](t, ctx, `String(Math.max(...[...document.querySelectorAll("#timeline .round")].map(r => Number(r.dataset.seq))))`)
	Step(t, ctx, "select the last round and revive",
		chromedp.Click(chromedp.CSS(`.round[data-seq="`+last+`"] .line .pick`)),
		chromedp.Click(chromedp.CSS("#revive")))
	Wait(t, ctx, "the revive preview", `document.querySelector("#action-preview .plan-lead") && document.querySelector("#action-preview .plan-lead").textContent.includes("to resume")`)
	Screenshot(t, ctx, Artifacts(t), "real-revive")
	text := func(sel string) string {
		t.Helper()
		return Eval[string](t, ctx, `[...document.querySelectorAll(`+jsString(sel)+`)].map(e => e.textContent).join(" | ")`)
	}
	lead, plan := text("#action-preview .plan-lead"), text("#action-preview .plan")
	t.Logf("revive: %s\n%s", lead, plan)
	if !strings.HasPrefix(lead, "Cairn would write ") || !strings.Contains(lead, "this session stays as it is.") {
		t.Errorf("the lead: %q", lead)
	}
	for _, want := range []string{"It keeps round " + last + " whole. Round 1 becomes one index line: the agent sees what it did", "No round of this session is left out."} {
		if !strings.Contains(plan, want) {
			t.Errorf("the plan %q, want %q", plan, want)
		}
	}
}
