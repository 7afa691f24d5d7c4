package http_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// stickyBottom is, in the page, how far down the window the bars that
// stay at its top reach: the header, the toolbar, an opened round's line
// and its bar, where they stick.
const stickyBottom = `(() => { let b = 0; for (const e of document.querySelectorAll("header, .toolbar, .round.open > .line, .round-bar")) { if (getComputedStyle(e).position !== "sticky") continue; const r = e.getBoundingClientRect(); if (r.height && r.top <= parseFloat(getComputedStyle(e).top) + 1) b = Math.max(b, r.bottom); } return b; })()`

// inView says whether the current find mark shows between the sticky bars
// and the window's bottom.
const inView = `(() => { const m = document.querySelector("mark.find.current"); if (!m) return false; const r = m.getBoundingClientRect(); return r.height > 0 && r.top >= ` + stickyBottom + ` && r.bottom <= innerHeight; })()`

// Most search hits are inside tool calls (a command, a path, an output):
// landing on one opens the call, marks the match and shows it below every
// sticky bar; n and N walk the matches in calls' inputs and outputs too.
func TestBrowserSearchLandsInTools(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	dir := Artifacts(t)

	const q = "GenServer"
	var res cairnhttp.SearchResponse
	MustGet(t, s, "/api/search?limit=50&q="+q, &res)
	tools := 0
	for _, h := range res.Hits {
		if h.Kind == cairn.ToolUse || h.Kind == cairn.ToolResult {
			tools++
		}
	}
	t.Logf("%d hits for %s, %d in tool calls", len(res.Hits), q, tools)
	if tools == 0 {
		t.Fatalf("no hit of %q in a tool call: %+v", q, res.Hits)
	}

	Step(t, ctx, "search", chromedp.Navigate(s.URL()+"/#/"))
	Wait(t, ctx, "sessions listed", `document.querySelectorAll("#sessions .session-row").length > 0`)
	Step(t, ctx, "type the words", chromedp.SendKeys(chromedp.CSS("#global-search input"), q+kb.Enter))
	Wait(t, ctx, "hits", `document.querySelectorAll("#hits .hit").length > 0`)
	hrefs := Eval[[]string](t, ctx, `[...document.querySelectorAll("#hits .hit a.hit-title")].map(a => a.getAttribute("href"))`)
	if len(hrefs) != len(res.Hits) {
		t.Fatalf("%d hits on the page, the API has %d", len(hrefs), len(res.Hits))
	}
	shot := false
	for i := range hrefs {
		h := res.Hits[i]
		if h.Kind != cairn.ToolUse && h.Kind != cairn.ToolResult {
			continue
		}
		Step(t, ctx, "back to the hits", chromedp.Navigate(s.URL()+"/#/search?q="+q))
		Wait(t, ctx, "hits", `document.querySelectorAll("#hits .hit").length === `+itoa(len(hrefs)))
		Step(t, ctx, "open hit "+itoa(i), chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("#hits .hit a.hit-title")[`+itoa(i)+`].click()`))
		Wait(t, ctx, "hit "+itoa(i)+" opened", `document.getElementById("timeline")`)
		Wait(t, ctx, "hit "+itoa(i)+" marked in a tool call", `document.querySelector("details.call[open] mark.find.current")`)
		Wait(t, ctx, "hit "+itoa(i)+" below the sticky bars", inView)
		if got := Eval[string](t, ctx, `document.querySelector("mark.find.current").textContent.toLowerCase()`); got != strings.ToLower(q) {
			t.Fatalf("hit %d: marked %q", i, got)
		}
		count := Eval[string](t, ctx, `document.getElementById("find-count").textContent`)
		step := Eval[string](t, ctx, `document.querySelector("mark.find.current").closest(".step").dataset.step`)
		t.Logf("hit %d (%s %s, step %s): landed in step %s, %s", i, h.Kind, h.Tool, h.Ref, step, count)
		if !strings.Contains(count, " of ") {
			t.Fatalf("hit %d: the find box says %q", i, count)
		}
		if h.Step != 0 && step != itoa(h.Step) {
			t.Fatalf("hit %d landed in step %s, the hit names step %d", i, step, h.Step)
		}
		if !shot {
			shot = true
			png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			writeArtifact(t, dir, "search-tool-hit.png", png)
		}
	}

	// n walks every match of the round, in inputs and outputs, each shown
	// below the bars; N goes back.
	total := Eval[int](t, ctx, `document.querySelectorAll("mark.find").length`)
	where := map[string]int{}
	seen := map[string]bool{}
	for k := 0; k < total; k++ {
		Step(t, ctx, "n", chromedp.KeyEvent("n"))
		Wait(t, ctx, "match in view after n", inView)
		seen[Eval[string](t, ctx, `document.getElementById("find-count").textContent`)] = true
		where[Eval[string](t, ctx, `(() => { const m = document.querySelector("mark.find.current"); return m.closest(".call") ? (m.closest(".raw") ? "raw" : "call") : "text"; })()`)]++
	}
	t.Logf("n walked %d matches: %v", total, where)
	if len(seen) != total {
		t.Fatalf("n went through %d of %d matches: %v", len(seen), total, seen)
	}
	if where["call"]+where["raw"] == 0 {
		t.Fatalf("n walked no match inside a call: %v", where)
	}
	at := Eval[string](t, ctx, `document.getElementById("find-count").textContent`)
	Step(t, ctx, "N", chromedp.KeyEvent("N"))
	Wait(t, ctx, "match in view after N", inView)
	if got := Eval[string](t, ctx, `document.getElementById("find-count").textContent`); got == at {
		t.Fatalf("N stayed at %q", got)
	}
}
