package http_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"

	"github.com/chromedp/chromedp"
)

// The long real sessions: autonomous rounds of hundreds of steps, each
// auto-compacted once.
const (
	longDir     = "../../shared/testdata/transcripts/marot__spotter/long"
	longSession = "258c7280-ae70-4798-800f-63464d01a85d"
)

// mustImportLong imports the long real sessions (and their subagents) into
// st, skipping the test when the shared transcripts are absent.
func mustImportLong(tb testing.TB, st *Store) {
	tb.Helper()
	if _, err := os.Stat(longDir); err != nil {
		tb.Skipf("REAL TRANSCRIPTS NOT FOUND: %v", err)
	}
	rep, err := st.importer.Import(context.Background(), []string{longDir})
	if err != nil {
		tb.Fatal(err)
	} else if rep.Failed > 0 {
		tb.Fatalf("import: %d files failed", rep.Failed)
	}
}

// A long round of a real session opens as its steps: each call one
// collapsed line paired with its result, a bar with an outline, collapse
// and expand all and a tool filter; rich views open on demand.
func TestBrowserSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	dir := Artifacts(t)

	Step(t, ctx, "open the long session", chromedp.Navigate(s.URL()+"/#/session/"+longSession))
	Wait(t, ctx, "rounds listed", `document.querySelectorAll("#timeline .round").length > 1`)
	Screenshot(t, ctx, dir, "long-session")

	// Round 0 opens (it failed with "Cannot read properties of undefined").
	Step(t, ctx, "open round 0", chromedp.Click(chromedp.CSS(`.round[data-seq="0"] .line .index`)))
	Wait(t, ctx, "round 0 shown", `document.querySelector('.round[data-seq="0"] .body') && !document.querySelector('.round[data-seq="0"] .body').textContent.includes("Loading")`)
	if got := Eval[string](t, ctx, `document.querySelector('.round[data-seq="0"] .body').textContent`); strings.Contains(got, "Cannot read") || strings.Contains(got, "undefined") {
		t.Fatalf("round 0: %q", got)
	}

	// Round 1: hundreds of steps, every call collapsed with its result.
	Step(t, ctx, "open round 1", chromedp.Click(chromedp.CSS(`.round[data-seq="1"] .line .index`)))
	Wait(t, ctx, "round 1's steps", `document.querySelectorAll('.round[data-seq="1"] .step').length > 50`)
	steps := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="1"] .step').length`)
	calls := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="1"] details.call').length`)
	bare := Eval[int](t, ctx, `[...document.querySelectorAll('.round[data-seq="1"] details.call[data-tool="Bash"] > summary')].filter(s => !s.querySelector(".arg")).length`)
	unpaired := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="1"] details.call .status-pending').length`)
	open := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="1"] details.call[open]').length`)
	empty := Eval[int](t, ctx, `[...document.querySelectorAll('.round[data-seq="1"] .block.assistant .text')].filter(t => !t.textContent.trim()).length`)
	height := Eval[float64](t, ctx, `document.querySelector('.round[data-seq="1"]').getBoundingClientRect().height`)
	t.Logf("round 1: %d steps, %d calls (%d Bash without a command, %d without a result, %d open), %d empty headings, %.0f px", steps, calls, bare, unpaired, open, empty, height)
	if calls < 100 || bare != 0 || open != 0 || empty != 0 {
		t.Fatalf("round 1: %d calls, %d Bash without a command, %d open, %d empty headings", calls, bare, open, empty)
	}
	Screenshot(t, ctx, dir, "long-round")

	// The tool filter keeps the steps that call Edit.
	Step(t, ctx, "filter Edit", chromedp.SetValue(chromedp.CSS(`.round[data-seq="1"] .tool-filter`), "Edit"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('.round[data-seq="1"] .tool-filter').dispatchEvent(new Event("change"))`))
	shown := Eval[int](t, ctx, `[...document.querySelectorAll('.round[data-seq="1"] .step')].filter(s => !s.hidden).length`)
	if shown == 0 || shown >= steps || Eval[int](t, ctx, `[...document.querySelectorAll('.round[data-seq="1"] .step')].filter(s => !s.hidden && !s.dataset.tools.split(" ").includes("Edit")).length`) != 0 {
		t.Fatalf("filter Edit shows %d of %d steps", shown, steps)
	}

	// An Edit opens as a diff, a Bash as its command and output.
	Step(t, ctx, "open an Edit", jsClick(`.round[data-seq="1"] details.call[data-tool="Edit"] > summary`))
	Wait(t, ctx, "a diff", `document.querySelector('.round[data-seq="1"] details.call[data-tool="Edit"] pre.diff .add')`)
	Step(t, ctx, "all steps again", chromedp.SetValue(chromedp.CSS(`.round[data-seq="1"] .tool-filter`), ""),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('.round[data-seq="1"] .tool-filter').dispatchEvent(new Event("change"))`))
	Step(t, ctx, "open a Bash", jsClick(`.round[data-seq="1"] details.call[data-tool="Bash"] > summary`))
	Wait(t, ctx, "its command", `document.querySelector('.round[data-seq="1"] details.call[data-tool="Bash"][open] pre.cmd').textContent.startsWith("$ ")`)
	Step(t, ctx, "raw", jsClick(`.round[data-seq="1"] details.call[data-tool="Bash"][open] .raw-toggle`))
	Wait(t, ctx, "raw shown", `!document.querySelector('.round[data-seq="1"] details.call[data-tool="Bash"][open] .raw').hidden`)

	// A Task call links to its subagent's session.
	Step(t, ctx, "open a Task", jsClick(`.round[data-seq="1"] details.call[data-tool="Task"] > summary`))
	Wait(t, ctx, "the subagent link", `document.querySelector('.round[data-seq="1"] details.call[data-tool="Task"] a.subagent-link')`)
	href := Eval[string](t, ctx, `document.querySelector('.round[data-seq="1"] details.call[data-tool="Task"] a.subagent-link').getAttribute("href")`)
	sub, ok := strings.CutPrefix(href, "#/session/")
	if !ok {
		t.Fatalf("subagent link %q", href)
	}
	var subSession cairnhttp.SessionResponse
	MustGet(t, s, "/api/sessions/"+sub, &subSession)
	if subSession.Session.Lineage != cairn.LineageSubagent || subSession.Session.Parent != longSession {
		t.Fatalf("the Task links to %s: %+v", sub, subSession.Session)
	}

	// Expand all, collapse all.
	Step(t, ctx, "expand all", jsClick(`.round[data-seq="1"] .expand-all`))
	if n := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="1"] details.call:not([open])').length`); n != 0 {
		t.Fatalf("%d calls closed after expand all", n)
	}
	Step(t, ctx, "collapse all", jsClick(`.round[data-seq="1"] .collapse-all`))
	if n := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="1"] details.call[open]').length`); n != 0 {
		t.Fatalf("%d calls open after collapse all", n)
	}

	// The outline leads to a step.
	Step(t, ctx, "outline", chromedp.Click(chromedp.CSS(`.round[data-seq="1"] .outline summary`)))
	Step(t, ctx, "go to step 100", chromedp.Click(chromedp.CSS(`.round[data-seq="1"] .outline a[data-step="100"]`)))
	Wait(t, ctx, "step 100 in view", `(() => { const r = document.querySelector('.round[data-seq="1"] .step[data-step="100"]').getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight; })()`)
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	writeArtifact(t, dir, "long-round-step100.png", buf)
}

// writeArtifact saves a screenshot of the window as dir/name.
func writeArtifact(tb testing.TB, dir, name string, png []byte) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// jsClick clicks the first element matching sel from script: the element
// may sit under the page's sticky header, where a mouse would not reach.
func jsClick(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).click()`, sel))
}
