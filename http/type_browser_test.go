package http_test

import (
	"slices"
	"strings"
	"testing"

	cairnhttp "github.com/cairn-dev/cairn/http"

	"github.com/chromedp/chromedp"
)

// Search answers as the reader types, once the typing pauses, without an
// address a keystroke in the history; a search of many hits says how many
// there are, or that there are more, and pages through them.
func TestBrowserSearchAsYouType(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	dir := Artifacts(t)

	searches := `performance.getEntriesByType("resource").filter(e => e.name.includes("/api/search")).length`
	Step(t, ctx, "the list", chromedp.Navigate(s.URL()+"/#/"))
	Wait(t, ctx, "sessions listed", `document.querySelectorAll("#sessions .session-row").length > 0`)
	Step(t, ctx, "type", chromedp.SendKeys(chromedp.CSS("#global-search input"), "GenServ"))
	Wait(t, ctx, "hits without Enter", `location.hash === "#/search?q=GenServ" && document.querySelectorAll("#hits .hit").length > 0`)
	if n := Eval[int](t, ctx, searches); n != 1 {
		t.Fatalf("typing 7 characters asked the server %d times, want once", n)
	}
	if !Eval[bool](t, ctx, `document.activeElement === document.querySelector("#global-search input")`) {
		t.Fatal("the search box lost the focus")
	}
	depth := Eval[int](t, ctx, `history.length`)
	Step(t, ctx, "type on", chromedp.SendKeys(chromedp.CSS("#global-search input"), "er"))
	Wait(t, ctx, "the longer words' hits", `location.hash === "#/search?q=GenServer" && document.querySelector(".hit-count") && document.title.includes("GenServer")`)
	if got := Eval[int](t, ctx, `history.length`); got != depth {
		t.Fatalf("typing on added %d history entries", got-depth)
	}
	if got := Eval[string](t, ctx, `document.querySelector("#global-search input").value`); got != "GenServer" {
		t.Fatalf("the box holds %q", got)
	}

	// Many hits: the first 50 of their total (the store counts them),
	// then the rest, and back.
	var all cairnhttp.SearchResponse
	MustGet(t, s, "/api/search?q=mix&limit=500", &all)
	if all.Total <= 50 || all.Total > 100 {
		t.Fatalf("mix: %d hits, want between 51 and 100", all.Total)
	}
	Step(t, ctx, "search mix", chromedp.Navigate(s.URL()+"/#/search?q=mix"))
	Wait(t, ctx, "the first page", `document.querySelectorAll("#hits .hit").length === 50`)
	if got, want := Eval[string](t, ctx, `document.querySelector(".hit-count").textContent`), "hits 1–50 of "+itoa(all.Total)+" ·"; !strings.HasPrefix(got, want) {
		t.Fatalf("the first page's count reads %q, want %q", got, want)
	}
	Screenshot(t, ctx, dir, "search-pages")
	Step(t, ctx, "next", jsClick(".hit-count a.next"))
	Wait(t, ctx, "the second page", `location.hash.includes("offset=50") && document.querySelectorAll("#hits .hit").length === `+itoa(all.Total-50))
	want := "hits 51–" + itoa(all.Total) + " of " + itoa(all.Total)
	if got := Eval[string](t, ctx, `document.querySelector(".hit-count").textContent`); !strings.HasPrefix(got, want) || Eval[bool](t, ctx, `!!document.querySelector(".hit-count a.next")`) {
		t.Fatalf("the second page's count reads %q, want %q and no next", got, want)
	}
	if got := Eval[string](t, ctx, `document.querySelector("#hits .hit .hit-title").getAttribute("href")`); !strings.Contains(got, all.Hits[50].SessionID) || !strings.Contains(got, "round="+itoa(all.Hits[50].RoundSeq)) {
		t.Fatalf("the second page begins with %s, want the 51st hit (%s round %d)", got, all.Hits[50].SessionID, all.Hits[50].RoundSeq)
	}
	Step(t, ctx, "previous", jsClick(".hit-count a.prev"))
	Wait(t, ctx, "the first page again", `!location.hash.includes("offset") && document.querySelectorAll("#hits .hit").length === 50`)

	// Filters: a harness none of these sessions is of finds nothing, and
	// says the filters are why; a project folder keeps its own hits, the
	// count the API's for the same filter.
	Step(t, ctx, "only Codex", chromedp.SetValue(chromedp.CSS(`#search-filters select[name="agent"]`), "codex"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#search-filters select[name="agent"]').dispatchEvent(new Event("change"))`))
	Wait(t, ctx, "no Codex hit", `location.hash.includes("agent=codex") && document.getElementById("no-hits")`)
	if got := Eval[string](t, ctx, `document.getElementById("no-hits").textContent`); !strings.Contains(got, "with these filters") {
		t.Fatalf("the empty search reads %q", got)
	}
	const project = "/home/USER/projects/spotter-worktrees/spotter-gqc"
	var inProject cairnhttp.SearchResponse
	MustGet(t, s, "/api/search?q=mix&limit=500&project="+project, &inProject)
	if inProject.Total == 0 || inProject.Total >= all.Total {
		t.Fatalf("mix in %s: %d hits of %d", project, inProject.Total, all.Total)
	}
	Step(t, ctx, "every harness, one project", chromedp.SetValue(chromedp.CSS(`#search-filters select[name="agent"]`), ""),
		chromedp.SetValue(chromedp.CSS(`#search-filters input[name="project"]`), project),
		chromedp.Click(chromedp.CSS(`#search-filters button`)))
	Wait(t, ctx, "the project's hits", `location.hash.includes("project=") && !location.hash.includes("agent=") && document.querySelector(".hit-count") && document.querySelectorAll("#hits .hit").length === `+itoa(inProject.Total))
	if got := Eval[[]string](t, ctx, `[...document.querySelectorAll("#hits .hit-head .mono[title]")].map(e => e.title)`); len(got) != inProject.Total || slices.ContainsFunc(got, func(p string) bool { return p != project }) {
		t.Fatalf("hits' projects %v, want %d of %s", got, inProject.Total, project)
	}
	Screenshot(t, ctx, dir, "search-filtered")

	// Whose words, or which part of a call, and which tool: the hits of
	// tool calls are calls, of Bash Bash's.
	var calls, bash cairnhttp.SearchResponse
	MustGet(t, s, "/api/search?q=mix&limit=500&role=call", &calls)
	MustGet(t, s, "/api/search?q=mix&limit=500&role=call&tool=Bash", &bash)
	Step(t, ctx, "in tool calls", chromedp.Navigate(s.URL()+"/#/search?q=mix"), chromedp.Sleep(200))
	Wait(t, ctx, "hits", `document.querySelectorAll("#hits .hit").length === 50`)
	Step(t, ctx, "in tool calls", chromedp.SetValue(chromedp.CSS(`#search-filters select[name="role"]`), "call"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#search-filters select[name="role"]').dispatchEvent(new Event("change"))`))
	Wait(t, ctx, "the calls' hits", `location.hash.includes("role=call") && document.querySelector(".hit-count") && document.querySelector(".hit-count").textContent.includes("of `+itoa(calls.Total)+`")`)
	if got := Eval[[]string](t, ctx, `[...document.querySelectorAll("#hits .hit-head > .muted:not(.mono)")].map(e => e.textContent.split(" · ")[3])`); slices.ContainsFunc(got, func(k string) bool { return !strings.HasPrefix(k, "tool-use") }) {
		t.Fatalf("hits in tool calls: %v", got)
	}
	Step(t, ctx, "of Bash", chromedp.SetValue(chromedp.CSS(`#search-filters input[name="tool"]`), "Bash"), chromedp.Click(chromedp.CSS(`#search-filters button`)))
	Wait(t, ctx, "Bash's hits", `location.hash.includes("tool=Bash") && document.querySelector(".hit-count") && document.querySelectorAll("#hits .hit").length === `+itoa(min(50, bash.Total)))
	if got := Eval[[]string](t, ctx, `[...document.querySelectorAll("#hits .hit-head > .muted:not(.mono)")].map(e => e.textContent.split(" · ")[3])`); slices.ContainsFunc(got, func(k string) bool { return k != "tool-use Bash" }) {
		t.Fatalf("hits in Bash's calls: %v", got)
	}

	// A phrase: fewer hits than its words, each with them in order.
	var phrase cairnhttp.SearchResponse
	MustGet(t, s, "/api/search?q=%22mix+test%22&limit=500", &phrase)
	Step(t, ctx, "a phrase", chromedp.Navigate(s.URL()+"/#/search?q="+`%22mix%20test%22`))
	Wait(t, ctx, "the phrase's hits", `document.querySelector(".hit-count") && document.querySelectorAll("#hits .hit").length === `+itoa(min(50, len(phrase.Hits))))
	if len(phrase.Hits) == 0 || len(phrase.Hits) >= len(all.Hits) {
		t.Fatalf("\"mix test\": %d hits, mix %d", len(phrase.Hits), len(all.Hits))
	}
}
