package http_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The address holds where the reader is: the round opened and the step at
// the top of the window, so that a reload, or the address sent to someone,
// opens the same place; each page names itself in the tab's title.
func TestBrowserWhereInURL(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	dir := Artifacts(t)

	Step(t, ctx, "the list", chromedp.Navigate(s.URL()+"/#/"))
	Wait(t, ctx, "sessions listed", `document.querySelectorAll("#sessions .session-row").length > 0`)
	titles := map[string]string{"list": Eval[string](t, ctx, `document.title`)}

	Step(t, ctx, "the long session", chromedp.Navigate(s.URL()+"/#/session/"+longSession))
	Wait(t, ctx, "rounds listed", `document.querySelectorAll("#timeline .round").length > 1`)
	Wait(t, ctx, "titled", `document.title.includes("Implement spotter-gqc")`)
	titles["session"] = Eval[string](t, ctx, `document.title`)

	// Open round 1 and go to step 100: the address follows.
	Step(t, ctx, "open round 1", chromedp.Click(chromedp.CSS(`.round[data-seq="1"] .line .index`)))
	Wait(t, ctx, "round 1's steps", `document.querySelectorAll('.round[data-seq="1"] .step').length > 100`)
	Wait(t, ctx, "round 1 in the address", `location.hash.includes("round=1")`)
	Step(t, ctx, "outline", chromedp.Click(chromedp.CSS(`.round[data-seq="1"] .outline summary`)))
	Step(t, ctx, "go to step 100", chromedp.Click(chromedp.CSS(`.round[data-seq="1"] .outline a[data-step="100"]`)))
	Wait(t, ctx, "step 100 in view", `(() => { const r = document.querySelector('.round[data-seq="1"] .step[data-step="100"]').getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight; })()`)
	Wait(t, ctx, "step 100 in the address", `location.hash.includes("round=1&step=100")`)
	if !strings.Contains(Eval[string](t, ctx, `document.title`), "round 1") {
		t.Fatalf("round 1 open, the title reads %q", Eval[string](t, ctx, `document.title`))
	}

	// Scrolling on moves the step in the address.
	Step(t, ctx, "scroll to step 120", chromedp.Evaluate[chromedp.Void](`reveal(document.querySelector('.round[data-seq="1"] .step[data-step="120"]'), "start")`))
	Wait(t, ctx, "step 120 in the address", `location.hash.includes("round=1&step=120")`)
	at := Eval[string](t, ctx, `location.hash`)
	t.Logf("address %s, title %q", at, Eval[string](t, ctx, `document.title`))

	// A reload opens the same round at the same step, below the bars.
	Step(t, ctx, "reload", chromedp.Reload())
	Wait(t, ctx, "round 1 open again", `document.querySelectorAll('.round[data-seq="1"] .step').length > 100`)
	Wait(t, ctx, "step 120 at the top", `(() => { const s = document.querySelector('.round[data-seq="1"] .step[data-step="120"]'); const r = s.getBoundingClientRect(); return r.top >= `+stickyBottom+` - 1 && r.top < `+stickyBottom+` + 40; })()`)
	if got := Eval[string](t, ctx, `location.hash`); got != at {
		t.Fatalf("after the reload the address is %s, was %s", got, at)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	writeArtifact(t, dir, "where-reloaded.png", shot)

	// Closing the round takes it out of the address.
	Step(t, ctx, "close round 1", jsClick(`.round[data-seq="1"] .line .index`))
	Wait(t, ctx, "no round in the address", `!location.hash.includes("round=")`)

	// Search, matrix, frames: a title each, all different.
	for page, hash := range map[string]string{"search": "#/search?q=doctests", "matrix": "#/matrix", "frames": "#/frames"} {
		Step(t, ctx, page, chromedp.Navigate(s.URL()+"/"+hash))
		Wait(t, ctx, page+" shown", `document.querySelector("h1")`)
		titles[page] = Eval[string](t, ctx, `document.title`)
	}
	seen := map[string]string{}
	for page, title := range titles {
		if !strings.HasSuffix(title, "cairn") || seen[title] != "" {
			t.Fatalf("titles %s", strconv.Quote(strings.Join(mapValues(titles), " | ")))
		}
		seen[title] = page
	}
	if !strings.Contains(titles["search"], "doctests") {
		t.Fatalf("the search page is titled %q", titles["search"])
	}
	t.Logf("titles: %v", titles)
}

func mapValues(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+": "+v)
	}
	return out
}
