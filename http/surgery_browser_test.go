package http_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A surgery preview says in words what the new session keeps before it is
// written (issue 46, point 9): one sentence first, then which rounds stay
// whole, become index lines or are left out, how a split's parts make up
// the session; once written, where.
func TestBrowserSurgeryInWords(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	dir := Artifacts(t)
	sess, err := st.Sessions.FindSessionByID(t.Context(), sessionA)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Rounds != 3 {
		t.Fatalf("session A: %d rounds, want 3", sess.Rounds)
	}

	Step(t, ctx, "open session A", chromedp.Navigate(s.URL()+"/#/session/"+sessionA))
	Wait(t, ctx, "rounds listed", `document.querySelectorAll("#timeline .round").length > 3`)
	text := func(sel string) string {
		t.Helper()
		return Eval[string](t, ctx, `[...document.querySelectorAll(`+jsString(sel)+`)].map(e => e.textContent).join(" | ")`)
	}

	// Split rounds 2-3 from the rest.
	Step(t, ctx, "select rounds 2-3 and split",
		chromedp.Click(chromedp.CSS(`.round[data-seq="2"] .line .pick`)),
		shiftClick(`.round[data-seq="3"] .line .index`),
		chromedp.SetValue(chromedp.CSS("#engagement"), "db"),
		chromedp.Click(chromedp.CSS("#split")))
	Wait(t, ctx, "the preview", `document.querySelectorAll("#action-preview .previewed").length === 2`)
	Screenshot(t, ctx, dir, "split-in-words")
	for _, c := range []struct{ what, sel, want string }{
		{"the lead", "#action-preview .plan-lead", "Cairn would write 2 new sessions, one per part ("},
		{"the lead's parts", "#action-preview .plan-lead", "“db”"},
		{"the lead's end", "#action-preview .plan-lead", "); this session stays as it is."},
		{"the parts and the whole", "#action-preview .plan-relation", "Together the 2 parts hold each of this session's 3 rounds once, "},
		{"db's plan", "#action-preview .plan", "It keeps rounds 2–3 whole. The other round of this session is left out."},
		{"rest's plan", "#action-preview .plan", "round 1"},
		{"rest's plan", "#action-preview .plan", "The other 2 rounds of this session are left out."},
		{"the labels once", "#action-preview .plan-part", "“db”: "},
	} {
		if got := text(c.sel); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.what, got, c.want)
		}
	}
	Step(t, ctx, "cancel", chromedp.Click(chromedp.CSS("#preview-cancel")))

	// Revive before round 3: the older rounds as index lines.
	Step(t, ctx, "select round 3 alone and revive",
		chromedp.Click(chromedp.CSS(`.round[data-seq="2"] .line .pick`)),
		chromedp.Click(chromedp.CSS("#revive")))
	Wait(t, ctx, "the revive preview", `document.querySelector("#action-preview .plan-lead") && document.querySelector("#action-preview .plan-lead").textContent.includes("to resume")`)
	plan := text("#action-preview .plan")
	t.Logf("revive: %s", plan)
	if !strings.Contains(plan, "It keeps round 3 whole. Rounds 1–2 become one index line each") || !strings.Contains(plan, "whole") || !strings.Contains(plan, "No round of this session is left out.") {
		t.Errorf("revive's plan: %q", plan)
	}
	Screenshot(t, ctx, dir, "revive-in-words")
	Step(t, ctx, "write", chromedp.Click(chromedp.CSS("#preview-write")))
	Wait(t, ctx, "written", `document.querySelector("#action-result .written")`)
	if got := text("#action-result .written"); !strings.HasPrefix(got, "Written to ") || !strings.HasSuffix(got, ".jsonl") {
		t.Errorf("where it was written: %q", got)
	}

	// The matrix names sessions by their titles, not their ids.
	if err := st.Tags.TagRounds(t.Context(), sessionA, []int{1, 2}, "auth-work", ""); err != nil {
		t.Fatal(err)
	}
	if err := st.Tags.TagRounds(t.Context(), subagentB, []int{1}, "auth-work", ""); err != nil {
		t.Fatal(err)
	}
	parent, err := st.Sessions.FindSessionByID(t.Context(), sessionB)
	if err != nil {
		t.Fatal(err)
	}
	Step(t, ctx, "open the matrix", chromedp.Navigate(s.URL()+"/#/matrix"))
	Wait(t, ctx, "matrix cells", `document.querySelectorAll("#matrix td a").length >= 3`)
	cells := text("#matrix td")
	t.Logf("matrix cells: %s", cells)
	for _, want := range []string{sess.Title[:20], parent.Title[:20], " rounds 1-2", " → "} {
		if !strings.Contains(cells, want) {
			t.Errorf("the matrix's cells %q, want %q", cells, want)
		}
	}
	for _, id := range []string{sessionA, sessionB} {
		if strings.Contains(cells, id[:8]) {
			t.Errorf("the matrix's cells name %s by its id: %q", id, cells)
		}
	}
	Screenshot(t, ctx, dir, "matrix-titles")
}
