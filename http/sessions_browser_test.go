package http_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	cairnhttp "github.com/cairn-dev/cairn/http"

	"github.com/chromedp/chromedp"
)

// The sessions list sorts by its columns, groups children under their
// parents, filters by a part of the project and says so when nothing
// matches.
func TestBrowserSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	dir := Artifacts(t)

	Step(t, ctx, "open the list", chromedp.Navigate(s.URL()+"/#/"))
	Wait(t, ctx, "sessions listed", `document.querySelectorAll("#sessions .session-row:not(.child)").length === 6`)
	// The long sessions' subagents (one a compaction agent) are under them.
	long := `document.querySelector('#sessions tr[data-id="` + longSession + `"]')`
	if got := Eval[string](t, ctx, long+`.querySelector(".kids").textContent`); got != "▸ 2" {
		t.Fatalf("the long session's children button reads %q", got)
	}
	Step(t, ctx, "show its children", chromedp.Evaluate[chromedp.Void](long+`.querySelector(".kids").click()`))
	if n := Eval[int](t, ctx, `[...document.querySelectorAll("#sessions tr.child")].filter(r => !r.hidden).length`); n != 2 {
		t.Fatalf("%d children shown, want 2", n)
	}
	if !Eval[bool](t, ctx, `[...document.querySelectorAll("#sessions tr.child .badge")].some(b => b.textContent === "compaction agent")`) {
		t.Fatal("the compaction agent is not labelled")
	}
	Screenshot(t, ctx, dir, "sessions-tree")

	// Sort by tokens: the long sessions first, then ascending.
	Step(t, ctx, "sort by tokens", chromedp.Click(chromedp.CSS(`#sessions th a[title="sort by tokens"]`)))
	Wait(t, ctx, "sorted", `location.hash.includes("sort=tokens")`)
	// The sorted list replaces the one before: wait for rows in order,
	// not for rows (the old list has six too).
	const rowTokens = `[...document.querySelectorAll("#sessions .session-row:not(.child)")].map(r => { const s = r.children[5].textContent; return parseFloat(s) * (s.endsWith("M") ? 1e6 : s.endsWith("k") ? 1e3 : 1); })`
	inOrder := func(desc bool) string {
		cmp := "<="
		if desc {
			cmp = ">="
		}
		return `((t) => t.length === 6 && t.every((x, i) => i === 0 || t[i-1] ` + cmp + ` x))(` + rowTokens + `)`
	}
	tokens := func() []float64 { return Eval[[]float64](t, ctx, rowTokens) }
	Wait(t, ctx, "listed in descending order", inOrder(true))
	got := tokens()
	for i := 1; i < len(got); i++ {
		if got[i-1] < got[i] {
			t.Fatalf("tokens descending: %v", got)
		}
	}
	Step(t, ctx, "sort ascending", chromedp.Click(chromedp.CSS(`#sessions th a[title="sort by tokens"]`)))
	Wait(t, ctx, "ascending", `location.hash.includes("order=asc")`)
	Wait(t, ctx, "listed in ascending order", inOrder(false))
	got = tokens()
	for i := 1; i < len(got); i++ {
		if got[i-1] > got[i] {
			t.Fatalf("tokens ascending: %v", got)
		}
	}

	// Sort by tool calls, then by duration: the rows in the API's order
	// (waited for: the list is drawn again after the hash changes).
	rowIDs := `JSON.stringify([...document.querySelectorAll("#sessions .session-row:not(.child)")].map(r => r.dataset.id))`
	for _, by := range []string{"tools", "duration"} {
		var want cairnhttp.SessionsResponse
		MustGet(t, s, "/api/sessions?sort="+by+"&tree=true", &want)
		ids := make([]string, len(want.Sessions))
		for i, row := range want.Sessions {
			ids[i] = row.ID
		}
		js, _ := json.Marshal(ids)
		Step(t, ctx, "sort by "+by, chromedp.Click(chromedp.CSS(`#sessions th a[title="sort by `+by+`"]`)))
		Wait(t, ctx, "rows by "+by+" as the API orders them", `location.hash.includes("sort=`+by+`") && `+rowIDs+` === `+strconv.Quote(string(js)))
		if by != "tools" {
			continue
		}
		calls := Eval[[]int](t, ctx, `[...document.querySelectorAll("#sessions .session-row:not(.child)")].map(r => Number(r.children[4].textContent))`)
		for i := 1; i < len(calls); i++ {
			if calls[i-1] < calls[i] {
				t.Fatalf("tool calls descending: %v", calls)
			}
		}
		if len(calls) == 0 || calls[0] < 100 || calls[0] != want.Sessions[0].ToolCalls {
			t.Fatalf("tool calls %v: the long sessions call hundreds of tools (the API: %d)", calls, want.Sessions[0].ToolCalls)
		}
		Screenshot(t, ctx, dir, "sessions-by-tools")
	}

	// Filter by a part of the project.
	Step(t, ctx, "filter spotter", chromedp.SetValue(chromedp.CSS(`#session-filters input[name="in"]`), "spotter-worktrees"),
		chromedp.Click(chromedp.CSS(`#session-filters button`)))
	Wait(t, ctx, "two long sessions", `location.hash.includes("in=spotter") && document.querySelectorAll("#sessions .session-row:not(.child)").length === 2`)
	Step(t, ctx, "filter nothing", chromedp.SetValue(chromedp.CSS(`#session-filters input[name="in"]`), "no-such-folder"),
		chromedp.Click(chromedp.CSS(`#session-filters button`)))
	Wait(t, ctx, "empty message", `document.getElementById("no-sessions")`)
	if got := Eval[string](t, ctx, `document.getElementById("no-sessions").textContent`); !strings.Contains(got, "no-such-folder") || strings.Contains(got, "cairn import") {
		t.Fatalf("empty message %q: want one naming the filter", got)
	}
}

// Each line of a session's round index shows its round's tool calls,
// duration and tokens; the calls are the API's count.
func TestBrowserRoundIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	dir := Artifacts(t)
	var rounds cairnhttp.RoundsResponse
	MustGet(t, s, "/api/sessions/"+longSession+"/rounds?limit=200", &rounds)
	var busy *cairnhttp.RoundLine
	for _, r := range rounds.Rounds {
		if busy == nil || r.ToolCalls > busy.ToolCalls {
			busy = r
		}
	}
	if busy == nil || busy.ToolCalls < 2 {
		t.Fatalf("no round of the long session calls tools: %+v", busy)
	}
	Step(t, ctx, "open the long session", chromedp.Navigate(s.URL()+"/#/session/"+longSession))
	line := `document.querySelector('.round[data-seq="` + strconv.Itoa(busy.Seq) + `"] .stats')`
	Wait(t, ctx, "the busy round's line", line)
	stats := Eval[[]string](t, ctx, `[...`+line+`.children].map(c => c.textContent)`)
	if len(stats) != 3 || stats[0] != strconv.Itoa(busy.ToolCalls)+" tool calls" || stats[1] == "" || !strings.Contains(stats[2], " in · ") {
		t.Fatalf("round %d's figures %q: want %d tool calls, a duration, tokens", busy.Seq, stats, busy.ToolCalls)
	}
	Step(t, ctx, "show the busy round", chromedp.Evaluate[chromedp.Void](line+`.scrollIntoView({block: "center"})`))
	Screenshot(t, ctx, dir, "round-index")
}
