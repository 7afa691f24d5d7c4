package http_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// tabStops counts the elements under root that Tab reaches.
func tabStops(root string) string {
	return `[...` + root + `.querySelectorAll('a[href], button, summary, input, select, textarea, [tabindex]')].filter(e => e.tabIndex >= 0 && !e.disabled && e.checkVisibility()).length`
}

// Inside a round, the keyboard walks the steps and a screen reader is told
// what changed, not the whole page (issue 46, point 10): Enter goes into a
// round, where j/k and the arrows move a cursor (the focus) over its
// steps, Enter opens a step's calls, Escape backs out step → round →
// closed round → the page before; a 150-step round is not hundreds of Tab stops; a skip link, no
// live <main>, search results announced and walked with j/k.
func TestBrowserKeyboard(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)

	Step(t, ctx, "open the long session's round 1", chromedp.Navigate(s.URL()+"/#/"), chromedp.Navigate(s.URL()+"/#/session/"+longSession+"?round=1"))
	Wait(t, ctx, "round 1's steps", `document.querySelectorAll('.round[data-seq="1"] .step').length > 100`)
	round := `document.querySelector('.round[data-seq="1"]')`
	steps := Eval[int](t, ctx, round+`.querySelectorAll(".step").length`)
	folded := Eval[int](t, ctx, round+`.querySelectorAll(".body details").length`)
	stops := Eval[int](t, ctx, tabStops(round))
	t.Logf("round 1: %d steps, %d folded calls and thoughts, %d Tab stops", steps, folded, stops)
	// A call or a thought is a stop (its summary opens it); a step's copy
	// buttons are not, but for the step under the cursor (before: 3 a step
	// more, 602 stops in this round).
	if stops > folded+8 {
		t.Errorf("%d Tab stops in a round of %d steps and %d folded parts, want at most %d", stops, steps, folded, folded+8)
	}

	// Enter on the round: its first step, focused; j the next.
	Step(t, ctx, "Enter", chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`), chromedp.KeyEvent(kb.Enter))
	Wait(t, ctx, "step 1 under the cursor", `document.activeElement.matches('.round[data-seq="1"] .step.cursor[data-step="1"]')`)
	if got := Eval[string](t, ctx, `document.activeElement.getAttribute("aria-label")`); got != "step 1.1" {
		t.Errorf("the step's label %q", got)
	}
	// Its copy buttons join the Tab order while it has the cursor.
	if n := Eval[int](t, ctx, tabStops(`document.activeElement.querySelector(".step-head")`)); n < 2 {
		t.Errorf("%d Tab stops in the cursor step's head, want its reference and inject buttons", n)
	}
	Step(t, ctx, "j, ArrowDown, k", chromedp.KeyEvent("j"), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent("k"))
	Wait(t, ctx, "step 2", `document.activeElement.matches('.step.cursor[data-step="2"]') && document.querySelectorAll(".cursor").length === 1`)
	if n := Eval[int](t, ctx, tabStops(`document.querySelector('.round[data-seq="1"] .step[data-step="1"] .step-head')`)); n != 0 {
		t.Errorf("step 1 keeps %d Tab stops once the cursor left it", n)
	}

	// Enter opens the calls of the step under the cursor; Enter again
	// closes them.
	target := Eval[int](t, ctx, `Number([...document.querySelectorAll('.round[data-seq="1"] .step')].find(s => s.dataset.step > 2 && s.querySelector(":scope > .step-body > details.call")).dataset.step)`)
	for i := 2; i < target; i++ {
		Step(t, ctx, "j", chromedp.KeyEvent("j"))
	}
	Wait(t, ctx, "the step with calls", `document.activeElement.matches('.step.cursor[data-step="`+itoa(target)+`"]')`)
	Step(t, ctx, "Enter", chromedp.KeyEvent(kb.Enter))
	Wait(t, ctx, "its calls open", `[...document.activeElement.querySelectorAll(":scope > .step-body > details.call")].every(d => d.open)`)
	Step(t, ctx, "Enter", chromedp.KeyEvent(kb.Enter))
	Wait(t, ctx, "its calls closed", `[...document.querySelectorAll('.step[data-step="`+itoa(target)+`"] > .step-body > details.call')].every(d => !d.open)`)

	// Escape: the round's line, then the round closed, then the page before.
	Step(t, ctx, "Escape", chromedp.KeyEvent(kb.Escape))
	Wait(t, ctx, "round 1's line", `document.activeElement.matches('.round[data-seq="1"].cursor > .line')`)
	Step(t, ctx, "Escape", chromedp.KeyEvent(kb.Escape))
	Wait(t, ctx, "round 1 closed", `!document.querySelector('.round[data-seq="1"]').classList.contains("open") && document.activeElement.matches('.round[data-seq="1"] > .line')`)
	Step(t, ctx, "Escape", chromedp.KeyEvent(kb.Escape))
	Wait(t, ctx, "the sessions again", `location.hash === "#/" && document.querySelector("#sessions")`)

	// Landmarks: a skip link to the content, <main> not read out whole.
	if got := Eval[string](t, ctx, `document.querySelector("a.skip").textContent + "|" + document.getElementById("main").getAttribute("aria-live") + "|" + document.querySelector("nav").getAttribute("aria-label")`); got != "Skip to the page's content|null|Pages" {
		t.Errorf("skip link, main's aria-live, nav's label: %q", got)
	}
	Step(t, ctx, "skip", chromedp.Evaluate[chromedp.Void](`document.querySelector("a.skip").click()`))
	Wait(t, ctx, "main focused", `document.activeElement.id === "main" && location.hash === "#/"`)

	// Search: / and words; the count announced; j walks the hits, Enter
	// follows one.
	Step(t, ctx, "search", chromedp.KeyEvent("/"), chromedp.Sleep(100), chromedp.SendKeys(chromedp.CSS("#global-search input"), "migration"+kb.Enter))
	Wait(t, ctx, "hits", `document.querySelectorAll("#hits .hit").length > 1`)
	Wait(t, ctx, "the count announced", `/hits? .*for migration\. j and k move between them\.$/.test(document.getElementById("announce").textContent)`)
	Step(t, ctx, "j j", chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`), chromedp.KeyEvent("j"), chromedp.KeyEvent("j"))
	Wait(t, ctx, "the second hit focused", `document.activeElement === document.querySelectorAll("#hits .hit-title")[1]`)
	Step(t, ctx, "Enter", chromedp.KeyEvent(kb.Enter))
	Wait(t, ctx, "its session", `location.hash.startsWith("#/session/") && document.querySelector("#timeline .round")`)
}

// Markdown in answers (issue 46, point 10): a fence without a language is
// not coloured as code (English words are not keywords), bare URLs are
// links (not their closing punctuation), code blocks have a copy button,
// and HTML stays text.
func TestBrowserMarkdown(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	const id = "6a7b0000-0000-4000-8000-0000000000d0"
	mustClaudeSession(t, st, id, []map[string]any{{"text": "See https://example.com/docs/a_b?x=1. Then *read* it:\n\n" +
		"```\nfor each file in the list, if it is not done and ready, return it\n```\n\n```go\nfor i := range n { return }\n```\n\n" +
		"1. one <b>two</b>\n2. **three** `four`\n"}})

	Step(t, ctx, "open the session", chromedp.Navigate(s.URL()+"/#/session/"+id+"?round=1"))
	Wait(t, ctx, "the answer", `document.querySelector('.round[data-seq="1"] .block.assistant .md')`)
	md := `document.querySelector('.round[data-seq="1"] .block.assistant .md')`
	for _, c := range []struct{ what, expr, want string }{
		{"the bare URL linked", md + `.querySelector("p a").getAttribute("href")`, "https://example.com/docs/a_b?x=1"},
		{"the sentence's full stop left out", md + `.querySelector("p a").textContent`, "https://example.com/docs/a_b?x=1"},
		{"emphasis", md + `.querySelector("p em").textContent`, "read"},
		{"no keywords in prose", md + `.querySelectorAll("pre.code")[0].querySelectorAll(".tok-k").length`, "0"},
		{"keywords in Go", md + `.querySelectorAll("pre.code")[1].querySelector(".tok-k").textContent`, "for"},
		{"a copy button on each code block", md + `.querySelectorAll(".codebox button.copy-code").length`, "2"},
		{"the list", md + `.querySelectorAll("ol li").length`, "2"},
		{"HTML as text", md + `.querySelector("ol li").textContent`, "one <b>two</b>"},
		{"bold and code", md + `.querySelectorAll("ol li")[1].querySelector("strong").textContent + "|" + ` + md + `.querySelectorAll("ol li")[1].querySelector("code").textContent`, "three|four"},
	} {
		if got := Eval[string](t, ctx, `String(`+c.expr+`)`); got != c.want {
			t.Errorf("%s: %q, want %q", c.what, got, c.want)
		}
	}
	if n := Eval[int](t, ctx, md+`.querySelectorAll("b, script, img").length`); n != 0 {
		t.Errorf("%d elements made from the answer's HTML", n)
	}
	Step(t, ctx, "copy the code", mayCopy(s.URL()), chromedp.Evaluate[chromedp.Void](md+`.querySelectorAll(".codebox button.copy-code")[1].click()`))
	Wait(t, ctx, "copied", md+`.querySelectorAll(".codebox button.copy-code")[1].textContent === "Copied"`)
	if got := evalAwait(t, ctx, `navigator.clipboard.readText()`); got != "for i := range n { return }" {
		t.Errorf("copied %q", got)
	}
}
