package http_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// A compaction is found by searching for it, shown as a divider with its
// trigger and the context's size, its summary one click away.
func TestBrowserCompaction(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	dir := Artifacts(t)

	Step(t, ctx, "search compacted", chromedp.Navigate(s.URL()+"/#/search"),
		chromedp.SendKeys(chromedp.CSS("#global-search input"), "compacted"+kb.Enter))
	Wait(t, ctx, "a compaction hit", `document.querySelector('#hits a[href*="`+longSession+`?round=1&"]')`)
	Step(t, ctx, "open it", chromedp.Click(chromedp.CSS(`#hits a[href*="`+longSession+`?round=1&"]`)))
	Wait(t, ctx, "the divider marked and in view", `(() => { const m = document.querySelector(".compaction mark.find.current"); if (!m) return false; const r = m.getBoundingClientRect(); return r.top > 0 && r.bottom < innerHeight; })()`)
	if got := Eval[string](t, ctx, `document.querySelector(".compaction").textContent`); got != "Context compacted (auto, 167k tokens)" {
		t.Fatalf("divider reads %q", got)
	}
	// The README's picture: the long session at its compaction, the Edit
	// just before it open as a diff.
	Step(t, ctx, "open the Edit before it", chromedp.Evaluate[chromedp.Void](`document.querySelector(".compaction").closest(".step-body").querySelector("details.call[data-tool=Edit] > summary").click()`),
		chromedp.Evaluate[chromedp.Void](`document.querySelector(".compaction").closest(".step").scrollIntoView({block: "start"})`))
	Wait(t, ctx, "the diff", `document.querySelector(".compaction").closest(".step-body").querySelector("pre.diff")`)
	readme, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	writeArtifact(t, dir, "readme-long-session.png", readme)

	summary := `document.querySelector(".compaction").nextElementSibling`
	if !Eval[bool](t, ctx, summary+`.matches("details.compaction-summary:not([open])")`) {
		t.Fatal("the summary does not follow the divider, collapsed")
	}
	Step(t, ctx, "open the summary", chromedp.Evaluate[chromedp.Void](summary+`.querySelector("summary").click()`))
	if got := Eval[string](t, ctx, summary+`.querySelector(".text").textContent`); !strings.Contains(got, "continued from a previous conversation") {
		t.Fatalf("summary %q", got[:min(len(got), 100)])
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	writeArtifact(t, dir, "compaction.png", shot)
}
