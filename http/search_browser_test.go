package http_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// A search hit leads to the text: its round opens at the match, scrolled
// to and marked; n and N go through the matches; / focuses the search box;
// hits name their session and mark subagents.
func TestBrowserSearchLands(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	dir := Artifacts(t)

	Step(t, ctx, "open the viewer", chromedp.Navigate(s.URL()+"/#/"))
	Wait(t, ctx, "sessions listed", `document.querySelectorAll("#sessions .session-row").length > 0`)
	Step(t, ctx, "/ focuses the search", chromedp.KeyEvent("/"))
	Wait(t, ctx, "/ focused the search box", `document.activeElement === document.querySelector("#global-search input")`)
	if got := Eval[string](t, ctx, `document.querySelector("#global-search input").value`); got != "" {
		t.Fatalf("search box holds %q after /", got)
	}
	Step(t, ctx, "search", chromedp.KeyEvent("doctests"+kb.Enter))
	Wait(t, ctx, "hits", `document.querySelectorAll("#hits .hit").length > 0`)
	if got := Eval[string](t, ctx, `document.querySelector("#hits .hit .hit-title").textContent`); len(got) < 10 || strings.HasPrefix(got, "258c7280") {
		t.Fatalf("hit titled %q: want the session's title", got)
	}
	Screenshot(t, ctx, dir, "search-long")

	// The hit in the long session's round 1, far below the round's top.
	Step(t, ctx, "open the hit", chromedp.Click(chromedp.CSS(`#hits a[href*="`+longSession+`?round=1&"]`)))
	Wait(t, ctx, "the match marked", `document.querySelector('.round[data-seq="1"] mark.find.current')`)
	Wait(t, ctx, "the match in view", `(() => { const r = document.querySelector("mark.find.current").getBoundingClientRect(); return r.top > 0 && r.bottom < innerHeight; })()`)
	if got := Eval[string](t, ctx, `document.querySelector("mark.find.current").textContent.toLowerCase()`); got != "doctests" {
		t.Fatalf("marked %q", got)
	}
	// The hit's snippet reads "87 tests + 14 doctests": the page lands on
	// that match, not on the round's first "doctests".
	if got := Eval[string](t, ctx, `document.querySelector("mark.find.current").closest(".block").textContent`); !strings.Contains(got, "87 tests") {
		t.Fatalf("landed on %q, want the snippet's match", got)
	}
	top := Eval[float64](t, ctx, `document.querySelector("mark.find.current").getBoundingClientRect().top - document.querySelector('.round[data-seq="1"]').getBoundingClientRect().top`)
	n := Eval[int](t, ctx, `document.querySelectorAll("mark.find").length`)
	t.Logf("match %.0f px below the round's top; %d matches", top, n)
	if top < 2000 {
		t.Fatalf("match %.0f px below the round's top: want one deep in the round", top)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	writeArtifact(t, dir, "search-landed.png", shot)

	// n goes to the next match, N back.
	at := Eval[string](t, ctx, `document.getElementById("find-count").textContent`)
	Step(t, ctx, "N", chromedp.KeyEvent("N"))
	// The matches are the three the answers hold and those in the calls'
	// outputs (the test runs').
	if got := Eval[string](t, ctx, `document.getElementById("find-count").textContent`); got == at || !strings.HasSuffix(got, " of "+itoa(n)) || n <= 3 {
		t.Fatalf("after N: %q (was %q)", got, at)
	}
	Step(t, ctx, "n", chromedp.KeyEvent("n"))
	if got := Eval[string](t, ctx, `document.getElementById("find-count").textContent`); got != at {
		t.Fatalf("after n: %q, want %q", got, at)
	}

	// The compaction agent is labelled as such in the hits.
	Step(t, ctx, "back to the hits", chromedp.NavigateBack())
	Wait(t, ctx, "hits", `document.querySelectorAll("#hits .hit").length > 0`)
	if !Eval[bool](t, ctx, `[...document.querySelectorAll("#hits .badge.compact")].some(b => b.textContent === "compaction agent")`) {
		t.Fatal("no hit labels the compaction agent")
	}
}

// The header's search box says which page is shown: the query on the
// search page, nothing on the sessions list or a session, the query again
// when the reader goes back to the search.
func TestBrowserSearchBoxFollowsPage(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	dir := Artifacts(t)
	box := func() string { return Eval[string](t, ctx, `document.querySelector("#global-search input").value`) }

	Step(t, ctx, "open the viewer", chromedp.Navigate(s.URL()+"/#/"))
	Wait(t, ctx, "sessions listed", `document.querySelectorAll("#sessions .session-row").length > 0`)
	Step(t, ctx, "search", chromedp.Click(chromedp.CSS("#global-search input")), chromedp.KeyEvent("mix"+kb.Enter))
	Wait(t, ctx, "hits", `location.hash.startsWith("#/search") && document.querySelectorAll("#hits .hit").length > 0`)
	if got := box(); got != "mix" {
		t.Fatalf("on the search page the box holds %q", got)
	}
	Step(t, ctx, "to the sessions", chromedp.Click(chromedp.CSS(`nav a[data-nav="sessions"]`)))
	Wait(t, ctx, "sessions listed", `!location.hash.startsWith("#/search") && document.querySelectorAll("#sessions .session-row").length > 0`)
	Screenshot(t, ctx, dir, "search-box-on-sessions")
	if got := box(); got != "" {
		t.Fatalf("on the sessions page the box holds %q", got)
	}
	Step(t, ctx, "back to the search", chromedp.Evaluate[chromedp.Void](`history.back()`))
	Wait(t, ctx, "hits again", `location.hash.startsWith("#/search") && document.querySelectorAll("#hits .hit").length > 0`)
	if got := box(); got != "mix" {
		t.Fatalf("back on the search page the box holds %q", got)
	}
	Step(t, ctx, "a session", chromedp.Click(chromedp.CSS(`#hits .hit a[href^="#/session/"]`)))
	Wait(t, ctx, "the session", `document.getElementById("timeline")`)
	if got := box(); got != "" {
		t.Fatalf("on a session the box holds %q", got)
	}
}
