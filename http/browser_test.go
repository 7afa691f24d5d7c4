package http_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// MustBrowser starts headless Chromium for a browser test: Debian's
// package, at $CAIRN_CHROMIUM or on PATH. Outside CI a missing browser
// skips the test, loudly; with CI set it fails it.
func MustBrowser(tb testing.TB) context.Context {
	tb.Helper()
	path := os.Getenv("CAIRN_CHROMIUM")
	if path == "" {
		var err error
		if path, err = exec.LookPath("chromium"); err != nil {
			const why = "BROWSER TESTS NOT RUN: no chromium on PATH and CAIRN_CHROMIUM unset; install Debian's chromium (apt-get install chromium) or source .ci/setup-chromium.sh"
			if os.Getenv("CI") != "" {
				tb.Fatal(why)
			}
			tb.Skip(why)
		}
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	tb.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser without a deadline
		tb.Fatalf("start %s: %v", path, err)
	}
	return ctx
}

// Artifacts returns the folder screenshots are kept in: $CAIRN_ARTIFACTS,
// else a new temporary folder that outlives the test.
func Artifacts(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("CAIRN_ARTIFACTS")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "cairn-artifacts-"); err != nil {
			tb.Fatal(err)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("screenshots in %s", dir)
	return dir
}

// Slack is how much longer than promised a timed test lets a step take
// under CI: CI runs the whole suite with the race detector, on a machine
// shared with other jobs, where a step promised in a second has taken
// several. What was measured is logged either way.
func Slack() time.Duration {
	if os.Getenv("CI") != "" {
		return 5
	}
	return 1
}

// StateDeadline is how long a test waits for a state it expects (a page
// element, a stored session): long, since reaching it early ends the wait
// and only a failure waits it out.
const StateDeadline = 60 * time.Second

// Step runs actions with a deadline, failing the test with what was being
// done.
func Step(tb testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
}

// Eval evaluates a JavaScript expression in the page.
func Eval[T any](tb testing.TB, ctx context.Context, expr string) T {
	tb.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.Fatalf("%s: %v", expr, err)
	}
	return v
}

// Screenshot saves the whole page as dir/name.png.
func Screenshot(tb testing.TB, ctx context.Context, dir, name string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	// From the top, so the sticky header and toolbar sit where they belong,
	// and without a passing notice.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.getElementById("toast").hidden = true`)); err != nil {
		tb.Fatal(err)
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Wait polls a JavaScript condition until it holds.
func Wait(tb testing.TB, ctx context.Context, what, cond string) {
	tb.Helper()
	deadline := time.Now().Add(StateDeadline)
	for {
		if Eval[bool](tb, ctx, "!!("+cond+")") {
			return
		}
		if time.Now().After(deadline) {
			body := Eval[string](tb, ctx, "document.getElementById('main').innerText.slice(0, 500)")
			tb.Fatalf("%s: %s never held; page: %s", what, cond, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shiftClick clicks the first element matching sel with shift held.
func shiftClick(sel string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		nodes, err := chromedp.Nodes(chromedp.CSS(sel))(ctx, t)
		if err != nil {
			return chromedp.Void{}, err
		} else if len(nodes) == 0 {
			return chromedp.Void{}, fmt.Errorf("no %s", sel)
		}
		return chromedp.MouseClickNode(nodes[0], chromedp.ButtonModifiers(chromedp.ModifierShift))(ctx, t)
	}
}

func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	dir := Artifacts(t)

	// Sessions: the sample store's four main sessions.
	Step(t, ctx, "open the viewer", chromedp.Navigate(s.URL()+"/"))
	Wait(t, ctx, "sessions listed", `document.querySelectorAll("#sessions .session-row:not(.child)").length === 4`)
	Screenshot(t, ctx, dir, "sessions")

	// Search: hits are highlighted, and lead to their round.
	Step(t, ctx, "search",
		chromedp.SendKeys(chromedp.CSS("#global-search input"), "migration"+kb.Enter))
	Wait(t, ctx, "hits shown", `document.querySelectorAll("#hits .hit mark").length > 0`)
	if got := Eval[string](t, ctx, `document.querySelector("#hits mark").textContent.toLowerCase()`); !strings.HasPrefix(got, "migration") {
		t.Fatalf("highlighted %q, want migration", got)
	}
	Screenshot(t, ctx, dir, "search")
	Step(t, ctx, "open a hit", chromedp.Click(chromedp.CSS("#hits .hit a")))
	Wait(t, ctx, "the hit's round opened", `document.querySelector(".round .body .block")`)

	// One session: a timeline of index lines; a round expands in full,
	// its thinking and tool calls collapsed.
	Step(t, ctx, "open session A", chromedp.Navigate(s.URL()+"/#/session/"+sessionA))
	Wait(t, ctx, "rounds listed", `document.querySelectorAll("#timeline .round").length > 3`)
	Step(t, ctx, "expand round 2", chromedp.Click(chromedp.CSS(`.round[data-seq="2"] .toggle`)))
	Wait(t, ctx, "round 2 in full", `document.querySelector('.round[data-seq="2"] .body .block.user')`)
	if n := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="2"] .body details.block[open]').length`); n != 0 {
		t.Fatalf("%d thinking or tool blocks open, want them collapsed", n)
	}
	// The answer's markdown is rendered (list items, inline code), not shown
	// raw, and the round's line starts with the user's prompt.
	if n := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="2"] .block.assistant li code').length`); n == 0 {
		t.Fatalf("round 2's answer is not rendered markdown: %s", Eval[string](t, ctx, `document.querySelector('.round[data-seq="2"] .block.assistant').innerHTML`))
	}
	if got := Eval[string](t, ctx, `document.querySelector('.round[data-seq="2"] .line .index .prompt').textContent`); !strings.HasPrefix(got, "Add a database migration") {
		t.Fatalf("round 2's line shows prompt %q", got)
	}

	// Select rounds 1 to 3: a click, then a shift-click.
	Step(t, ctx, "select rounds 1-3",
		chromedp.Click(chromedp.CSS(`.round[data-seq="1"] .line .pick`)),
		shiftClick(`.round[data-seq="3"] .line .index`))
	Wait(t, ctx, "three rounds selected", `document.querySelectorAll(".round.selected").length === 3`)
	if got := Eval[string](t, ctx, `document.getElementById("selection").textContent`); !strings.Contains(got, "1-3") {
		t.Fatalf("selection reads %q, want 1-3", got)
	}

	// Tag them.
	Step(t, ctx, "tag rounds 1-3",
		chromedp.SendKeys(chromedp.CSS("#engagement"), "auth-work"),
		chromedp.Click(chromedp.CSS("#tag")))
	Wait(t, ctx, "tags shown", `document.querySelectorAll(".round .badge.eng").length === 3`)
	if e := engagements(t, st, sessionA); e[1] != "auth-work" || e[2] != "auth-work" || e[3] != "auth-work" {
		t.Fatalf("stored engagements %v, want rounds 1-3 tagged auth-work", e)
	}
	Screenshot(t, ctx, dir, "session")

	// Suggest tags from search, and confirm them.
	Step(t, ctx, "suggest tags",
		chromedp.Click(chromedp.CSS("#suggest summary")),
		chromedp.SendKeys(chromedp.CSS("#suggest-words"), "benchmark"),
		chromedp.Click(chromedp.CSS("#suggest-run")))
	Wait(t, ctx, "candidates listed", `document.querySelectorAll("#suggestions .candidate mark").length > 0`)
	Screenshot(t, ctx, dir, "suggest")
	Step(t, ctx, "confirm the suggestions", chromedp.Click(chromedp.CSS("#suggest-confirm")))
	Wait(t, ctx, "suggested tags shown", `[...document.querySelectorAll(".round .badge.eng")].some(b => b.textContent === "benchmark")`)

	// Split by the selection: rounds 2-3 become "db", the rest another child.
	Step(t, ctx, "select rounds 2-3 and split",
		chromedp.Click(chromedp.CSS(`.round[data-seq="2"] .line .pick`)),
		shiftClick(`.round[data-seq="3"] .line .index`),
		chromedp.SetValue(chromedp.CSS("#engagement"), "db"),
		chromedp.Click(chromedp.CSS("#split")))
	// First a preview with the token estimate; nothing written yet.
	Wait(t, ctx, "the preview", `document.querySelectorAll("#action-preview .previewed").length === 2`)
	if got := Eval[string](t, ctx, `document.getElementById("action-preview").textContent`); !strings.Contains(got, "tokens the client sends (budget ") || !strings.Contains(got, "for the session today") {
		t.Fatalf("preview %q: want the token estimate", got)
	}
	if kids := children(t, st, sessionA); len(kids) != 0 {
		t.Fatalf("the preview wrote %d children", len(kids))
	}
	Screenshot(t, ctx, dir, "split-preview")
	Step(t, ctx, "write", chromedp.Click(chromedp.CSS("#preview-write")))
	Wait(t, ctx, "split children shown", `document.querySelectorAll("#action-result .exported").length === 2`)
	// The lineage is refreshed: both children, labelled by operation and
	// engagement.
	Wait(t, ctx, "lineage refreshed", `document.querySelectorAll("#children li").length === 2`)
	if got := Eval[string](t, ctx, `document.getElementById("children").textContent`); !strings.Contains(got, "split · db") || !strings.Contains(got, "split · rest") {
		t.Fatalf("children %q: want them labelled split · db and split · rest", got)
	}
	Step(t, ctx, "copy the resume command", chromedp.Click(chromedp.CSS("#action-result .copy")))
	Wait(t, ctx, "copied", `document.querySelector("#action-result .copy").textContent === "Copied"`)
	if got := Eval[string](t, ctx, `document.querySelector("#action-result .resume").textContent`); !strings.Contains(got, "claude --resume") {
		t.Fatalf("resume command %q", got)
	}
	kids := children(t, st, sessionA)
	if len(kids) != 2 {
		t.Fatalf("%d children of session A in the store, want 2", len(kids))
	}
	Screenshot(t, ctx, dir, "split")
	// The same split again: the preview names the children, Write is off.
	Step(t, ctx, "split again", chromedp.Click(chromedp.CSS("#split")))
	Wait(t, ctx, "the preview names the child", `document.querySelector("#action-preview") && document.querySelector("#action-preview").textContent.includes("Already written")`)
	if !Eval[bool](t, ctx, `document.getElementById("preview-write").disabled`) {
		t.Fatal("Write is enabled for a duplicate")
	}
	if got := Eval[string](t, ctx, `document.querySelector("#action-preview .existing .resume").textContent`); !strings.HasPrefix(got, "claude --resume ") {
		t.Fatalf("the duplicate's resume command %q", got)
	}
	Screenshot(t, ctx, dir, "split-duplicate")
	Step(t, ctx, "cancel", chromedp.Click(chromedp.CSS("#preview-cancel")))
	Step(t, ctx, "open a child", chromedp.Click(chromedp.CSS("#children a")))
	Wait(t, ctx, "the child's lineage names its parent", `document.querySelector("#lineage a") && document.querySelector("#lineage").textContent.includes("split")`)

	// The engagement × agent matrix: a row per engagement phase, the
	// subagent's rounds linked to the round that spawned them.
	if err := st.Engagements.SetEngagementPhases(context.Background(), "auth-work", []cairn.EngagementPhase{
		{Name: "design", StartedAt: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)},
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Tags.TagRounds(context.Background(), subagentB, []int{1}, "auth-work", ""); err != nil {
		t.Fatal(err)
	}
	Step(t, ctx, "open the matrix", chromedp.Navigate(s.URL()+"/#/matrix"))
	Wait(t, ctx, "matrix rows", `document.querySelectorAll("#matrix tbody tr").length >= 2`)
	Wait(t, ctx, "a phase row and a linked subagent cell", `[...document.querySelectorAll("#matrix tbody th")].some(th => th.textContent.startsWith("auth-work/design")) && document.querySelector("#matrix").textContent.includes("→")`)
	Screenshot(t, ctx, dir, "matrix")

	// The frame tree, with statuses.
	stack := &cairn.Stack{Frames: st.Frames}
	bg := context.Background()
	if _, err := stack.Push(bg, "", &cairn.Frame{ID: "auth", Title: "Fix the login console", SuccessCriteria: "one message per failed login"}, "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := stack.Plan(bg, "auth", []*cairn.Frame{{ID: "audit", Title: "Audit console writes", SuccessCriteria: "every write listed"}, {ID: "tests", Title: "Regression test", SuccessCriteria: "fails before the fix"}}); err != nil {
		t.Fatal(err)
	}
	Step(t, ctx, "open frames", chromedp.Navigate(s.URL()+"/#/frames"))
	Wait(t, ctx, "frame tree", `document.querySelectorAll("#frames .frame").length === 3 && document.querySelector("#frames .status.in_progress")`)
	Screenshot(t, ctx, dir, "frames")
}
