package http_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// emulate sets the window to width × height and the colour scheme the
// page sees ("light" or "dark").
func emulate(width, height int64, scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := chromedp.EmulateViewport(width, height)(ctx, t); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

// At 390 px, a phone's width, nothing is wider than the window; in a dark
// system the page is dark; the keyboard moves, opens, selects and tags.
func TestBrowserSmallDarkKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	dir := Artifacts(t)

	Step(t, ctx, "a phone, dark", emulate(390, 844, "dark"), chromedp.Navigate(s.URL()+"/#/"))
	Wait(t, ctx, "sessions listed", `document.querySelectorAll("#sessions .session-row").length > 0`)
	wide := `document.documentElement.scrollWidth`
	if w := Eval[int](t, ctx, wide); w > 390 {
		t.Fatalf("sessions at 390 px: the page is %d px wide", w)
	}
	if bg := Eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(22, 24, 28)" {
		t.Fatalf("dark system: body background %s", bg)
	}
	Screenshot(t, ctx, dir, "phone-dark-sessions")
	Step(t, ctx, "the long session", chromedp.Navigate(s.URL()+"/#/session/"+longSession+"?round=1"))
	Wait(t, ctx, "round 1 open", `document.querySelectorAll('.round[data-seq="1"] .step').length > 50`)
	Step(t, ctx, "open a Bash and an Edit", jsClick(`.round[data-seq="1"] details.call[data-tool="Bash"] > summary`), jsClick(`.round[data-seq="1"] details.call[data-tool="Edit"] > summary`))
	if w := Eval[int](t, ctx, wide); w > 390 {
		culprits := Eval[string](t, ctx, `[...document.querySelectorAll("*")].filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === "visible").slice(-6).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right)).join("; ")`)
		t.Fatalf("an open round at 390 px: the page is %d px wide: %s", w, culprits)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	writeArtifact(t, dir, "phone-dark-round.png", shot)

	// Light again, wide: the keyboard.
	Step(t, ctx, "a desktop, light", emulate(1280, 900, "light"), chromedp.Navigate(s.URL()+"/#/session/"+sessionA))
	Wait(t, ctx, "rounds listed", `document.querySelectorAll("#timeline .round").length > 3`)
	if bg := Eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(251, 250, 247)" {
		t.Fatalf("light system: body background %s", bg)
	}
	key := func(k string) { Step(t, ctx, "key "+k, chromedp.KeyEvent(k)) }
	key("j")
	key("j")
	key("k")
	if got := Eval[string](t, ctx, `document.querySelector(".round.cursor").dataset.seq`); got != "0" {
		t.Fatalf("after j j k the cursor is on round %s, want 0", got)
	}
	key("j")
	key("o")
	Wait(t, ctx, "o opened round 1", `document.querySelector('.round[data-seq="1"] .body .block.user')`)
	key("x")
	key("j")
	key("x")
	if got := Eval[string](t, ctx, `document.getElementById("selection").textContent`); !strings.Contains(got, "1-2") {
		t.Fatalf("after x j x: %q", got)
	}
	key("t")
	Wait(t, ctx, "t focuses the engagement", `document.activeElement.id === "engagement"`)
	Step(t, ctx, "name it and press Enter", chromedp.KeyEvent("keyboard\r"))
	Wait(t, ctx, "tagged", `document.querySelectorAll(".round .badge.eng").length === 2`)
	if e := engagements(t, st, sessionA); e[1] != "keyboard" || e[2] != "keyboard" {
		t.Fatalf("stored engagements %v", e)
	}
}
