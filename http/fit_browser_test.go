package http_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cairnhttp "github.com/cairn-dev/cairn/http"

	"github.com/chromedp/chromedp"
)

// mustImportReal imports every real transcript the tests have: the shared
// ones (the long sessions, their subagents, the other public repositories')
// and the long sessions the real client made for cairn (testdata/long).
func mustImportReal(tb testing.TB, st *Store) {
	tb.Helper()
	mustImportLong(tb, st)
	shared := "../../shared/testdata/transcripts"
	paths := []string{shared, "../testdata/long"}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			tb.Skipf("REAL TRANSCRIPTS NOT FOUND: %v", err)
		}
	}
	// The long session again as it reads from a deep project folder whose
	// path has no place to break (a Go checkout's), its prompt a path too:
	// what made the list wider than the window.
	data, err := os.ReadFile(filepath.Join(longDir, longSession+".jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	deep := strings.NewReplacer(longSession, deepSession,
		"/home/USER/projects/spotter-worktrees/spotter-gqc", deepProject,
		"Implement spotter-gqc", "Implement internal/session_list_renderer/column_widths_for_narrow_windows.go").Replace(string(data))
	copyDir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(copyDir, deepSession+".jsonl"), []byte(deep), 0o644); err != nil {
		tb.Fatal(err)
	}
	rep, err := st.importer.Import(context.Background(), append(paths, copyDir))
	if err != nil {
		tb.Fatal(err)
	} else if rep.Failed > 0 {
		tb.Fatalf("import: %d files failed", rep.Failed)
	}
}

// The long session's copy in a deep project folder (mustImportReal).
const (
	deepSession = "258c7280-0000-4000-8000-0000000000de"
	deepProject = "/home/USER/go/src/github.com/someorganisation/averyverylongrepositoryname_withoutbreaks/internal/server_side_renderer"
)

// The sessions list fits the window at every width: at 1,400 px every
// column, the default sort's included, shows without scrolling sideways;
// at 390 px nothing is wider than the phone, folded children stay folded,
// and the list can still be sorted.
func TestBrowserSessionsFit(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportReal(t, st)
	dir := Artifacts(t)

	for _, w := range []int64{1400, 390} {
		for _, theme := range []string{"light", "dark"} {
			Step(t, ctx, "the list", emulate(w, 900, theme), chromedp.Navigate(s.URL()+"/#/"))
			Wait(t, ctx, "sessions listed", `document.querySelectorAll("#sessions .session-row").length > 10`)
			width := Eval[int](t, ctx, `document.documentElement.scrollWidth`)
			t.Logf("sessions at %d px (%s): the page is %d px wide", w, theme, width)
			if width > int(w) {
				t.Fatalf("sessions at %d px: the page is %d px wide", w, width)
			}
			// Folded children stay folded; the deep project shows its end.
			if n := Eval[int](t, ctx, `[...document.querySelectorAll("#sessions tr.child")].filter(r => r.offsetHeight > 0).length`); n != 0 {
				t.Fatalf("sessions at %d px: %d folded children shown", w, n)
			}
			if w > 700 {
				project := Eval[string](t, ctx, `document.querySelector('#sessions tr[data-id="`+deepSession+`"] .project').textContent`)
				if !strings.HasPrefix(project, "…") || !strings.HasSuffix(deepProject, project[len("…"):]) || !strings.HasSuffix(project, "server_side_renderer") {
					t.Fatalf("the deep project reads %q", project)
				}
			}
			Screenshot(t, ctx, dir, "sessions-fit-"+itoa(int(w))+"-"+theme)
		}

		// Sorting, where the column heads are not shown too.
		Wait(t, ctx, "the sort", `document.getElementById("session-sort").offsetHeight > 0`)
		Step(t, ctx, "sort by tool calls", chromedp.SetValue(chromedp.CSS("#session-sort"), "tools"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("session-sort").dispatchEvent(new Event("change"))`))
		Wait(t, ctx, "sorted by tools", `location.hash.includes("sort=tools") && document.querySelectorAll("#sessions .session-row").length > 10`)
		var want cairnhttp.SessionsResponse
		MustGet(t, s, "/api/sessions?sort=tools&tree=true&limit=50", &want)
		ids := Eval[[]string](t, ctx, `[...document.querySelectorAll("#sessions .session-row:not(.child)")].map(r => r.dataset.id)`)
		if len(ids) != len(want.Sessions) || ids[0] != want.Sessions[0].ID || ids[len(ids)-1] != want.Sessions[len(ids)-1].ID {
			t.Fatalf("sorted by tools at %d px: %v", w, ids)
		}

		// Grouped by project: a heading per project, each session under
		// its own, the projects in the order of their first session.
		Step(t, ctx, "group by project", chromedp.Click(chromedp.CSS("#session-group")))
		Wait(t, ctx, "grouped", `location.hash.includes("group=project") && document.querySelectorAll("#sessions tr.group-row").length > 3`)
		headingsShown := func(how string) {
			t.Helper()
			// Each heading shows, its project's path readable, at every width.
			if hidden := Eval[[]string](t, ctx, `[...document.querySelectorAll("#sessions tr.group-row")].filter(r => r.offsetHeight < 8 || r.querySelector("th").offsetWidth < 100 || !r.innerText.includes("session")).map(r => r.dataset.project + ": " + r.offsetHeight + "×" + r.offsetWidth)`); len(hidden) > 0 {
				Screenshot(t, ctx, dir, "sessions-grouped-"+itoa(int(w))+"-hidden")
				t.Fatalf("grouped at %d px (%s): %d project headings not shown: %v", w, how, len(hidden), hidden)
			}
		}
		headingsShown("ticked")
		// The same list loaded afresh from its address, on a phone as a
		// phone reports itself (mobile, touch, 3 pixels a point).
		mobile := emulate(w, 900, "light")
		if w < 700 {
			mobile = chromedp.EmulateViewport(w, 900, chromedp.EmulateMobile, chromedp.EmulateScale(3), chromedp.EmulateTouch)
		}
		Step(t, ctx, "reload grouped", mobile, chromedp.Navigate(s.URL()+"/?fresh#/?group=project"))
		Wait(t, ctx, "grouped again", `document.querySelector("#session-group").checked && document.querySelectorAll("#sessions tr.group-row").length > 3`)
		headingsShown("loaded")
		// Grouped right after the plain list was asked for, as the screens
		// test does: the plain list's answer, arriving late, must not be
		// drawn under the grouped page's ticked box.
		Step(t, ctx, "plain then grouped", chromedp.Evaluate[chromedp.Void](`location.hash = "#/?sort=rounds"; setTimeout(() => { location.hash = "#/?sort=rounds&group=project"; }, 0)`))
		Wait(t, ctx, "grouped after plain", `location.hash.endsWith("group=project") && document.querySelectorAll("#sessions tr.group-row").length > 3`)
		Step(t, ctx, "settle", chromedp.Sleep(300*time.Millisecond))
		if n := Eval[int](t, ctx, `document.querySelectorAll("#main table").length`); n != 1 {
			Screenshot(t, ctx, dir, "sessions-grouped-"+itoa(int(w))+"-stale")
			t.Fatalf("grouped after plain at %d px: %d lists on the page", w, n)
		}
		headingsShown("after plain")
		groups := Eval[[]string](t, ctx, `(() => { const out = []; let g = ""; for (const r of document.querySelectorAll("#sessions tr")) { if (r.classList.contains("group-row")) { g = r.dataset.project; out.push("# " + g); } else if (r.classList.contains("session-row") && !r.classList.contains("child")) { if (r.dataset.project !== g) out.push("misplaced " + r.dataset.id); } } return out; })()`)
		seen := map[string]bool{}
		for _, g := range groups {
			if strings.HasPrefix(g, "misplaced") || seen[g] {
				t.Fatalf("grouped at %d px: %v", w, groups)
			}
			seen[g] = true
		}
		if width := Eval[int](t, ctx, `document.documentElement.scrollWidth`); width > int(w) {
			t.Fatalf("grouped sessions at %d px: the page is %d px wide", w, width)
		}
		t.Logf("grouped at %d px: %d projects", w, len(groups))
		Screenshot(t, ctx, dir, "sessions-grouped-"+itoa(int(w)))
	}
}

// Every page fits the window at 1,400 and 390 px, in both themes: the
// list, a search, a search hit landed on inside a tool call. The
// screenshots are what issue 46's closing note describes.
func TestBrowserScreens(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportReal(t, st)
	dir := Artifacts(t)

	var res cairnhttp.SearchResponse
	MustGet(t, s, "/api/search?limit=50&q=GenServer", &res)
	hit := ""
	for _, h := range res.Hits {
		if h.Tool == "Read" {
			hit = "#/session/" + h.SessionID + "?round=" + itoa(h.RoundSeq) + "&step=" + itoa(h.Step) + "&find=GenServer"
			break
		}
	}
	if hit == "" {
		t.Fatal("no hit of GenServer in a Read")
	}
	for _, w := range []int64{1400, 390} {
		for _, theme := range []string{"light", "dark"} {
			name := func(page string) string { return "screen-" + page + "-" + itoa(int(w)) + "-" + theme }
			fits := func(page string) {
				t.Helper()
				if width := Eval[int](t, ctx, `document.documentElement.scrollWidth`); width > int(w) {
					wide := Eval[string](t, ctx, `[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > innerWidth + 1).slice(-3).map(e => e.tagName + "." + e.className + ": " + e.textContent.slice(0, 80)).join(" | ")`)
					t.Fatalf("%s at %d px (%s): the page is %d px wide: %s", page, w, theme, width, wide)
				}
			}
			window := func(page string) {
				t.Helper()
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				writeArtifact(t, dir, name(page)+".png", png)
			}
			Step(t, ctx, "the list", emulate(w, 900, theme), chromedp.Navigate(s.URL()+"/#/?group=project"))
			Wait(t, ctx, "sessions listed", `document.querySelectorAll("#sessions .session-row").length > 10 && document.querySelectorAll("#sessions.grouped tr.group-row").length > 3`)
			if n := Eval[int](t, ctx, `document.querySelectorAll("#main table").length`); n != 1 {
				t.Fatalf("the list at %d px (%s): %d tables", w, theme, n)
			}
			fits("the list")
			window("list")
			Step(t, ctx, "a search", chromedp.Navigate(s.URL()+"/#/search?q=mix"))
			Wait(t, ctx, "hits", `document.querySelectorAll("#hits .hit").length > 10`)
			fits("a search")
			window("search")
			Step(t, ctx, "a tool hit", chromedp.Navigate(s.URL()+"/"+hit))
			Wait(t, ctx, "landed in the call", `document.querySelector("details.call[open] mark.find.current")`)
			Wait(t, ctx, "in view", inView)
			fits("a tool hit")
			window("tool-hit")
			Step(t, ctx, "back to the list", chromedp.Navigate(s.URL()+"/#/"))
		}
	}
}
