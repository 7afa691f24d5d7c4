package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/surgery"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The shared real transcripts besides the long sessions: Claude Code
// sessions made by other tools' authors (claude-code-viewer's, with a
// slash command and an inline subagent) and marot's short ones (a local
// command's coloured output).
const (
	sharedDir    = "../../shared/testdata/transcripts"
	ccvSession   = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7" // /orchestrator, 13 calls and 8 by an inline subagent
	shortSession = "55604662-cf2a-4331-851a-ec234028f8ca" // /model, its output in bold
	ansiRead     = "8463c716-a2ea-4c14-9efa-87158ebd9f20" // a Read of a saved terminal output
)

// mustImportShared imports the shared transcripts in dirs (under
// sharedDir), skipping the test when they are absent.
func mustImportShared(tb testing.TB, st *Store, dirs ...string) {
	tb.Helper()
	for _, d := range dirs {
		path := filepath.Join(sharedDir, d)
		if _, err := os.Stat(path); err != nil {
			tb.Skipf("REAL TRANSCRIPTS NOT FOUND: %v", err)
		}
		rep, err := st.importer.Import(context.Background(), []string{path})
		if err != nil {
			tb.Fatal(err)
		} else if rep.Failed > 0 {
			tb.Fatalf("import %s: %d files failed", d, rep.Failed)
		}
	}
}

// ctrlK presses Ctrl+K, the command palette's key.
func ctrlK() chromedp.Action[chromedp.Void] {
	return chromedp.KeyEvent("k", chromedp.KeyModifiers(chromedp.ModifierCtrl))
}

// The command palette, keyboard only: Ctrl+K opens it over any page;
// what is typed matches fuzzily rounds, steps, sessions and actions;
// arrows choose, Enter runs, Esc closes and gives the focus back.
func TestBrowserPalette(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	dir := Artifacts(t)
	open := `!document.getElementById("palette").hidden`
	first := `document.querySelector("#palette-list [aria-selected=true] .palette-label").textContent`
	typeIn := func(what string) {
		t.Helper()
		Step(t, ctx, "type "+what, chromedp.Evaluate[chromedp.Void](`document.getElementById("palette-input").value = ""`), chromedp.KeyEvent(what))
	}

	Step(t, ctx, "open session A", chromedp.Navigate(s.URL()+"/#/session/"+sessionA))
	Wait(t, ctx, "rounds listed", `document.querySelectorAll("#timeline .round").length > 3`)
	Step(t, ctx, "focus the find box, then Ctrl+K", chromedp.Focus(chromedp.CSS("#find")), ctrlK())
	Wait(t, ctx, "the palette opens, even from a field", open+` && document.activeElement.id === "palette-input"`)

	// A round, by fuzzy letters of its prompt ("Add a database migration").
	typeIn("dbmigr")
	Wait(t, ctx, "a round first", first+`.startsWith("Round 2")`)
	Screenshot(t, ctx, dir, "palette-round")
	Step(t, ctx, "Enter", chromedp.KeyEvent("\r"))
	Wait(t, ctx, "round 2 opened", `!document.getElementById("palette").hidden === false && document.querySelector('.round[data-seq="2"] .body .step')`)

	// A step of the opened round, by its reference and tool.
	ref := Eval[string](t, ctx, `document.querySelector('.round[data-seq="2"] .step[data-step="2"]').stepInfo ? "2.2" : ""`)
	if ref == "" {
		t.Fatal("round 2 has no step 2")
	}
	Step(t, ctx, "Ctrl+K", ctrlK())
	Wait(t, ctx, "open", open)
	tool := Eval[string](t, ctx, `(document.querySelector('.round[data-seq="2"] .step[data-step="2"]').stepInfo.calls || [{tool: ""}])[0].tool`)
	typeIn("2.2 " + tool)
	Wait(t, ctx, "the step first", first+`.startsWith("2.2")`)
	Step(t, ctx, "Enter", chromedp.KeyEvent("\r"))
	Wait(t, ctx, "the step flashes", `document.querySelector('.round[data-seq="2"] .step[data-step="2"].flash')`)

	// A step by its number, in a round not opened yet.
	Step(t, ctx, "Ctrl+K", ctrlK())
	typeIn("3.2")
	Wait(t, ctx, "go to the step first", first+` === "Go to step 3.2"`)
	Step(t, ctx, "Enter", chromedp.KeyEvent("\r"))
	Wait(t, ctx, "step 3.2 flashes", `document.querySelector('.round[data-seq="3"] .step[data-step="2"].flash')`)

	// An action with its argument: tag the selection.
	Step(t, ctx, "select round 1", jsClick(`.round[data-seq="1"] .pick`))
	Step(t, ctx, "Ctrl+K", ctrlK())
	typeIn("tag palette")
	Wait(t, ctx, "the tag action first", first+` === "Tag the selection as palette"`)
	Step(t, ctx, "Enter", chromedp.KeyEvent("\r"))
	Wait(t, ctx, "tagged", `document.querySelector('.round[data-seq="1"] .badge.eng')`)
	if e := engagements(t, st, sessionA); e[1] != "palette" {
		t.Fatalf("stored engagements %v", e)
	}

	// Revive's preview, by a few letters; arrows move, Esc closes.
	Step(t, ctx, "Ctrl+K", ctrlK())
	typeIn("rviv")
	Wait(t, ctx, "revive first", first+` === "Revive: preview"`)
	Step(t, ctx, "down, up, Enter", chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowUp), chromedp.KeyEvent(kb.Enter))
	Wait(t, ctx, "the preview", `document.getElementById("action-preview")`)
	Step(t, ctx, "Ctrl+K then Esc", chromedp.Focus(chromedp.CSS("#find")), ctrlK(), chromedp.KeyEvent(kb.Escape))
	Wait(t, ctx, "closed, the focus back", `document.getElementById("palette").hidden && document.activeElement.id === "find"`)

	// A session of the store, by its title; then a search.
	title := evalAwait(t, ctx, `fetch("/api/sessions/`+sessionB+`").then(r => r.json()).then(d => d.session.title)`)
	Step(t, ctx, "Ctrl+K", ctrlK())
	Wait(t, ctx, "sessions listed", `[...document.querySelectorAll("#palette-list .palette-item")].some(li => li.dataset.group === "Session")`)
	typeIn(title)
	Wait(t, ctx, "session B first", first+` === `+jsString(title))
	Step(t, ctx, "Enter", chromedp.KeyEvent("\r"))
	Wait(t, ctx, "session B open", `location.hash === "#/session/`+sessionB+`" && document.querySelector("#timeline .round")`)
	Step(t, ctx, "Ctrl+K", ctrlK())
	typeIn("search migration")
	Wait(t, ctx, "the search first", first+` === "Search for “migration”"`)
	Step(t, ctx, "Enter", chromedp.KeyEvent("\r"))
	Wait(t, ctx, "hits", `document.querySelectorAll("#hits .hit").length > 0`)
}

// evalAwait evaluates a script whose value is a promise of a string.
func evalAwait(tb testing.TB, ctx context.Context, expr string) string {
	tb.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.Fatalf("%s: %v", expr, err)
	}
	return v
}

// jsString quotes s for a script.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// contrastScript returns, for the page as it is, the contrast ratio
// (WCAG 2) of each kind of text against what is behind it, the lowest
// of the elements of each kind.
const contrastScript = `(() => {
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const behind = (e) => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3); } return rgb(getComputedStyle(document.documentElement).backgroundColor).slice(0, 3); };
  const kinds = {
    "body text": "main p, .block .text p, .block .text li, td", "muted": ".muted, th, .meta, .step-head .muted", "links": "a[href]",
    "summaries": "details.block > summary", "code": "pre.term, pre.cmd, pre.code, .md code, code.arg", "buttons": "button:not(:disabled), select, input",
    "badges": ".badge", "status": ".status-ok, .status-err", "step refs": ".step-ref", "prompts": ".round .index .prompt", "diff": "pre.diff .add, pre.diff .del",
  };
  const out = {};
  for (const [k, sel] of Object.entries(kinds)) {
    let low = Infinity, at = "";
    for (const e of document.querySelectorAll(sel)) {
      if (!e.getClientRects().length || !e.textContent.trim()) continue;
      const fg = rgb(getComputedStyle(e).color), bg = behind(e);
      const [a, b] = [lum(fg.slice(0, 3)), lum(bg)];
      const r = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (r < low) { low = r; at = e.tagName.toLowerCase() + "." + e.className + " " + getComputedStyle(e).color + " on rgb(" + bg.join(", ") + ")"; }
    }
    if (low < Infinity) out[k] = { ratio: Math.round(low * 100) / 100, at };
  }
  return JSON.stringify(out);
})()`

// The theme: system (the default), light or dark, set in the header,
// kept across reloads; in both themes every kind of text on a session
// page with an opened round reads at 4.5:1 or more against its
// background (WCAG AA for body text).
func TestBrowserTheme(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, _ := MustOpenServer(t)
	dir := Artifacts(t)
	theme := `document.documentElement.dataset.theme`

	Step(t, ctx, "a dark system", emulate(1280, 900, "dark"), chromedp.Navigate(s.URL()+"/#/session/"+sessionA+"?round=2"))
	Wait(t, ctx, "round 2 open", `document.querySelector('.round[data-seq="2"] .body .step')`)
	if got := Eval[string](t, ctx, theme); got != "dark" {
		t.Fatalf("system setting, dark system: theme %q", got)
	}
	Step(t, ctx, "light", chromedp.SetValue(chromedp.CSS("#theme"), "light"), chromedp.Evaluate[chromedp.Void](`document.getElementById("theme").dispatchEvent(new Event("change"))`))
	Step(t, ctx, "reload", chromedp.Reload())
	Wait(t, ctx, "round 2 open", `document.querySelector('.round[data-seq="2"] .body .step')`)
	if got := Eval[string](t, ctx, theme+` + " " + document.getElementById("theme").value`); got != "light light" {
		t.Fatalf("light set, dark system, after a reload: theme and setting %q", got)
	}
	if bg := Eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(251, 250, 247)" {
		t.Fatalf("light theme: body background %s", bg)
	}

	check := func(name string) {
		t.Helper()
		Step(t, ctx, "open every round", chromedp.Evaluate[chromedp.Void](`for (const r of document.querySelectorAll(".round:not(.open) .toggle")) r.click()`))
		Wait(t, ctx, "every round open", `[...document.querySelectorAll(".round")].every(r => r.querySelector(".body") && !r.querySelector(".body").textContent.startsWith("Loading"))`)
		Step(t, ctx, "open every call and thinking", chromedp.Evaluate[chromedp.Void](`for (const d of document.querySelectorAll(".round .body details")) d.open = true`))
		Wait(t, ctx, "calls filled", `document.querySelectorAll(".round .body .call-body").length === document.querySelectorAll(".round .body details.call").length`)
		type ratio struct {
			Ratio float64 `json:"ratio"`
			At    string  `json:"at"`
		}
		got := map[string]ratio{}
		measure := func() {
			var page map[string]ratio
			if err := json.Unmarshal([]byte(Eval[string](t, ctx, contrastScript)), &page); err != nil {
				t.Fatal(err)
			}
			for k, v := range page {
				if old, ok := got[k]; !ok || v.Ratio < old.Ratio {
					got[k] = v
				}
			}
		}
		measure()
		Screenshot(t, ctx, dir, "theme-"+name)
		// The list's badges (subagents, the compaction agent) too.
		Step(t, ctx, "the list", chromedp.Navigate(s.URL()+"/#/?subagents=true"))
		Wait(t, ctx, "badges", `document.querySelector("#sessions .badge")`)
		Step(t, ctx, "children shown", chromedp.Evaluate[chromedp.Void](`for (const b of document.querySelectorAll("#sessions .kids")) b.click()`))
		measure()
		Step(t, ctx, "back", chromedp.Navigate(s.URL()+"/#/session/"+sessionA+"?round=2"))
		Wait(t, ctx, "round 2 open", `document.querySelector('.round[data-seq="2"] .body .step')`)
		low := math.Inf(1)
		for k, v := range got {
			t.Logf("%s theme, %s: %.2f:1 at least (%s)", name, k, v.Ratio, v.At)
			if v.Ratio < 4.5 {
				t.Errorf("%s theme, %s: contrast %.2f:1, want 4.5:1 at least: %s", name, k, v.Ratio, v.At)
			}
			low = min(low, v.Ratio)
		}
		if len(got) < 11 {
			t.Fatalf("%s theme: only %d kinds of text measured: %v", name, len(got), got)
		}
	}
	check("light")

	Step(t, ctx, "a light system, dark set", emulate(1280, 900, "light"), chromedp.SetValue(chromedp.CSS("#theme"), "dark"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("theme").dispatchEvent(new Event("change"))`))
	if got := Eval[string](t, ctx, theme); got != "dark" {
		t.Fatalf("dark set, light system: theme %q", got)
	}
	check("dark")

	// System again: the system's, and it follows the system's changes.
	Step(t, ctx, "system", chromedp.SetValue(chromedp.CSS("#theme"), "system"), chromedp.Evaluate[chromedp.Void](`document.getElementById("theme").dispatchEvent(new Event("change"))`))
	if got := Eval[string](t, ctx, theme); got != "light" {
		t.Fatalf("system set, light system: theme %q", got)
	}
	Step(t, ctx, "the system turns dark", emulate(1280, 900, "dark"))
	Wait(t, ctx, "dark follows", theme+` === "dark"`)
}

// Copy buttons: each message, a call's input and output, a step's
// reference and the cairn inject command for it copy what they say.
// mayCopy makes the page focused and lets origin read and write the
// clipboard, as a reader's page may.
func mayCopy(origin string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
			return err
		}
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			if _, err := cdp.Call(ctx, tg, browser.SetPermission, browser.SetPermissionParams{Permission: &browser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true}, Setting: browser.PermissionSettingGranted, Origin: origin}); err != nil {
				return err
			}
		}
		return nil
	})
}

func TestBrowserCopy(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, _ := MustOpenServer(t)
	Step(t, ctx, "open round 2", chromedp.Navigate(s.URL()+"/#/session/"+sessionA+"?round=2"))
	Wait(t, ctx, "round 2 open", `document.querySelector('.round[data-seq="2"] .body .step')`)
	var round struct {
		Blocks []struct {
			Kind    string `json:"kind"`
			Content string `json:"content"`
		} `json:"blocks"`
	}
	MustGet(t, s, "/api/sessions/"+sessionA+"/rounds/2", &round)
	want := map[string]string{}
	for _, b := range round.Blocks {
		if _, ok := want[b.Kind]; !ok {
			want[b.Kind] = b.Content
		}
	}
	// The page is focused and may write the clipboard, as a reader's
	// is; a button's text is read back from the clipboard itself.
	Step(t, ctx, "a focused page that may copy", mayCopy(s.URL()))
	copied := func(sel string) string {
		t.Helper()
		Step(t, ctx, "click "+sel, chromedp.Evaluate[chromedp.Void](`navigator.clipboard.writeText("")`), jsClick(sel))
		Wait(t, ctx, sel+" copied", `document.querySelector(`+jsString(sel)+`).textContent === "Copied"`)
		return evalAwait(t, ctx, `navigator.clipboard.readText()`)
	}
	if got := copied(`.round[data-seq="2"] .block.user .copy-block`); got != want["user-text"] {
		t.Fatalf("the prompt's button copied %q, want %q", got, want["user-text"])
	}
	if got := copied(`.round[data-seq="2"] .block.assistant .copy-block`); got != want["assistant-text"] {
		t.Fatalf("the answer's button copied %q, want %q", got, want["assistant-text"])
	}
	Step(t, ctx, "open the first call", jsClick(`.round[data-seq="2"] details.call > summary`))
	if got := copied(`.round[data-seq="2"] details.call .copy-input`); got != want["tool-use"] {
		t.Fatalf("the input's button copied %q, want %q", got, want["tool-use"])
	}
	if got := copied(`.round[data-seq="2"] details.call .copy-output`); got != want["tool-result"] {
		t.Fatalf("the output's button copied %q, want %q", got, want["tool-result"])
	}
	if got := copied(`.round[data-seq="2"] .step[data-step="1"] .step-ref`); got != "2.1" {
		t.Fatalf("the step's reference copied %q, want 2.1", got)
	}
	if got, want := copied(`.round[data-seq="2"] .step[data-step="1"] .step-inject`), "cairn inject "+sessionA+" 2.1"; got != want {
		t.Fatalf("the step's inject copied %q, want %q", got, want)
	}
	// What is copied is the ref surgery parses.
	if _, err := surgery.ParseRef("2.1"); err != nil {
		t.Fatal(err)
	}
}

// At a phone's 390 × 844 the pages read as lines: a session's title runs
// the width of the list, not down a narrow column; nothing is wider than
// the window; the palette fits. Screenshots of each.
func TestBrowserPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	dir := Artifacts(t)
	shot := func(name string) {
		t.Helper()
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		writeArtifact(t, dir, name+".png", buf)
	}
	wide := func(what string) {
		t.Helper()
		if w := Eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 390 {
			t.Fatalf("%s at 390 px: the page is %d px wide", what, w)
		}
	}

	Step(t, ctx, "a phone", emulate(390, 844, "light"), chromedp.Navigate(s.URL()+"/#/"))
	Wait(t, ctx, "sessions listed", `document.querySelectorAll("#sessions .session-row").length > 4`)
	wide("sessions")
	narrow := Eval[float64](t, ctx, `Math.min(...[...document.querySelectorAll("#sessions .session-row:not([hidden]) .title-cell")].map(e => e.getBoundingClientRect().width))`)
	tall := Eval[float64](t, ctx, `Math.max(...[...document.querySelectorAll("#sessions .session-row:not([hidden])")].map(e => e.getBoundingClientRect().height))`)
	t.Logf("sessions at 390 px: title cells %.0f px wide at least, rows %.0f px tall at most", narrow, tall)
	if narrow < 340 || tall > 110 {
		t.Fatalf("sessions at 390 px: title cells %.0f px wide (want ≥ 340), rows up to %.0f px tall (want ≤ 110)", narrow, tall)
	}
	shot("phone-sessions")

	Step(t, ctx, "the long session", chromedp.Navigate(s.URL()+"/#/session/"+longSession))
	Wait(t, ctx, "rounds listed", `document.querySelectorAll("#timeline .round").length > 1`)
	wide("a session")
	lines := Eval[float64](t, ctx, `Math.max(...[...document.querySelectorAll("#timeline .round > .line")].map(e => e.getBoundingClientRect().height))`)
	toolbar := Eval[float64](t, ctx, `document.querySelector(".toolbar").getBoundingClientRect().height`)
	t.Logf("a session at 390 px: round lines %.0f px tall at most, the toolbar %.0f px", lines, toolbar)
	if lines > 60 || toolbar > 170 {
		t.Fatalf("a session at 390 px: round lines up to %.0f px (want ≤ 60), toolbar %.0f px (want ≤ 170)", lines, toolbar)
	}
	shot("phone-session")

	Step(t, ctx, "round 1", chromedp.Navigate(s.URL()+"/#/session/"+longSession+"?round=1"))
	Wait(t, ctx, "round 1 open", `document.querySelectorAll('.round[data-seq="1"] .step').length > 50`)
	Step(t, ctx, "open a Bash", jsClick(`.round[data-seq="1"] details.call[data-tool="Bash"] > summary`))
	wide("an open round")
	shot("phone-round")

	Step(t, ctx, "the palette", chromedp.Evaluate[chromedp.Void](`document.getElementById("palette-open").click()`))
	Wait(t, ctx, "open", `!document.getElementById("palette").hidden`)
	if w := Eval[float64](t, ctx, `document.querySelector(".palette-panel").getBoundingClientRect().right`); w > 390 {
		t.Fatalf("the palette reaches %.0f px at 390", w)
	}
	shot("phone-palette")
}

// hugeSession writes a session of one round: a prompt of 300,000
// characters with a word only at its 60,000th, and a Bash call whose result
// is 1.6 MB (with the prompt, one page of the round), then one that fails in colour. Returns its id.
func hugeSession(tb testing.TB, st *Store) string {
	tb.Helper()
	id := "0b1e0000-0000-4000-8000-00000000c1a9"
	// The needle past the head shown, inside what search indexes (the
	// first 100,000 characters: cairn.IndexText).
	filler := "lorem ipsum dolor sit amet\n"
	prompt := strings.Repeat(filler, 60000/27) + "the needle is zebraquux here\n" + strings.Repeat(filler, 240000/27)
	result := strings.Repeat("output line of a long build\n", 1600000/28) // with the prompt, within a page (MaxPageBytes)
	line := func(n int, typ, parent string, msg any) string {
		m, _ := json.Marshal(msg)
		p := "null"
		if parent != "" {
			p = fmt.Sprintf("%q", parent)
		}
		return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":%q,"message":%s,"uuid":"00000000-0000-4000-8000-%012d","timestamp":"2026-03-19T10:00:%02d.000Z","sessionId":%q,"cwd":"/w"}`+"\n",
			p, typ, m, n, n, id)
	}
	uuid := func(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }
	data := line(1, "user", "", map[string]any{"role": "user", "content": prompt}) +
		line(2, "assistant", uuid(1), map[string]any{"id": "msg_1", "role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{"command": "make"}}}}) +
		line(3, "user", uuid(2), map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": result}}}) +
		line(4, "assistant", uuid(3), map[string]any{"id": "msg_2", "role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t2", "name": "Bash", "input": map[string]any{"command": "make test"}}}}) +
		line(5, "user", uuid(4), map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t2", "is_error": true, "content": "\x1b[31mFAIL\x1b[0m \x1b[1mTestX\x1b[22m"}}}) +
		line(6, "assistant", uuid(5), map[string]any{"id": "msg_3", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "The build passes; TestX fails."}}})
	path := filepath.Join(tb.TempDir(), id+".jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		tb.Fatal(err)
	}
	if fr, problems := st.importer.ImportFile(context.Background(), path); fr.Error != "" || len(problems) > 0 {
		tb.Fatalf("import: %s %v", fr.Error, problems)
	}
	return id
}

// A 300,000-character prompt and a 1.6 MB result show their heads with
// "show more"; a find (as a search hit's link makes) lands on a word past
// the head; a failing command's output shows its colours, not escapes.
func TestBrowserHuge(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	id := hugeSession(t, st)
	dir := Artifacts(t)

	Step(t, ctx, "open the round", chromedp.Navigate(s.URL()+"/#/session/"+id+"?round=1"))
	Wait(t, ctx, "round 1 open", `document.querySelector('.round[data-seq="1"] .body .step')`)
	if got := Eval[string](t, ctx, `document.getElementById("session-rounds").textContent`); got != "1 round" {
		t.Fatalf("a session of one round says %q", got)
	}
	shown := Eval[int](t, ctx, `document.querySelector('.round[data-seq="1"] .block.user .text').textContent.length`)
	t.Logf("a prompt of 300,000 characters: %d shown", shown)
	if shown > 25000 || Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="1"] .block.user .show-more').length`) != 1 {
		t.Fatalf("a prompt of 300,000 characters shows %d, want its head and show more", shown)
	}
	Step(t, ctx, "open the build", jsClick(`.round[data-seq="1"] details.call > summary`))
	out := Eval[int](t, ctx, `document.querySelector('.round[data-seq="1"] details.call .rich').textContent.length`)
	t.Logf("a result of 1.6 MB: %d characters shown", out)
	if out > 25000 {
		t.Fatalf("a result of 1.6 MB shows %d characters", out)
	}
	Step(t, ctx, "show more", jsClick(`.round[data-seq="1"] details.call .rich .show-more`))
	if more := Eval[int](t, ctx, `document.querySelector('.round[data-seq="1"] details.call .rich').textContent.length`); more <= out || more > 50000 {
		t.Fatalf("show more: %d characters, had %d", more, out)
	}
	Screenshot(t, ctx, dir, "huge-round")

	// The failing command: coloured, no escape left.
	Step(t, ctx, "open the test", jsClick(`.round[data-seq="1"] details.call.error > summary`))
	if got := Eval[string](t, ctx, `document.querySelector('.round[data-seq="1"] details.call.error .rich pre.term.err').textContent`); strings.Contains(got, "\x1b") || got != "FAIL TestX" {
		t.Fatalf("a failing command's output reads %q", got)
	}
	if n := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="1"] details.call.error .rich pre.term.err .fg-red').length`); n != 1 {
		t.Fatalf("%d red runs in a failing command's output", n)
	}

	// A search hit past the head: the link the search page makes.
	var hits struct {
		Hits []struct {
			Round int    `json:"round"`
			Step  int    `json:"step"`
			Kind  string `json:"kind"`
		} `json:"hits"`
	}
	MustGet(t, s, "/api/search?q=zebraquux", &hits)
	if len(hits.Hits) != 1 {
		t.Fatalf("search zebraquux: %+v", hits.Hits)
	}
	Step(t, ctx, "the search page", chromedp.Navigate(s.URL()+"/#/search?q=zebraquux"))
	Wait(t, ctx, "the hit", `document.querySelector("#hits .hit a")`)
	Step(t, ctx, "open the hit", jsClick("#hits .hit a"))
	Wait(t, ctx, "the word marked", `document.querySelector("mark.find.current")`)
	if got := Eval[string](t, ctx, `document.querySelector("mark.find.current").textContent`); got != "zebraquux" {
		t.Fatalf("landed on %q", got)
	}
	if y := Eval[float64](t, ctx, `document.querySelector("mark.find.current").getBoundingClientRect().top`); y < 0 || y > 900 {
		t.Fatalf("the mark is at %.0f px, out of view", y)
	}
}

// The defects of issue #29, each on the real session that showed it:
// a round's line and its opened bar counting calls differently (inline
// subagents' calls), slash commands shown as raw tags, escapes left in
// meta lines and in a Read of a saved terminal output, ?round=999 ignored
// in silence, revive's budget unexplained.
func TestBrowserDefects(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustImportShared(t, st, "d-kimuson__claude-code-viewer", "marot__spotter/short.jsonl", "marot__spotter/long")
	dir := Artifacts(t)
	text := func(sel string) string {
		t.Helper()
		return Eval[string](t, ctx, `document.querySelector(`+jsString(sel)+`).textContent`)
	}

	// claude-code-viewer's session: /orchestrator with arguments, 13
	// calls on the main chain and 8 by an inline subagent.
	Step(t, ctx, "the /orchestrator session", chromedp.Navigate(s.URL()+"/#/session/"+ccvSession+"?round=1"))
	Wait(t, ctx, "round 1 open", `document.querySelector('.round[data-seq="1"] .body .round-figures')`)
	line, bar := text(`.round[data-seq="1"] .line .calls`), text(`.round[data-seq="1"] .round-figures`)
	t.Logf("round line %q, opened %q", line, bar)
	if line != "13 tool calls" || !strings.Contains(bar, "· 13 tool calls · 8 more by inline subagents") {
		t.Fatalf("the round's line says %q, the opened round %q: want 13 on both, the subagents' 8 apart", line, bar)
	}
	for _, sel := range []string{"h1", `.round[data-seq="1"] .line .index`, `.round[data-seq="1"] .body .prompt`} {
		if got := text(sel); strings.Contains(got, "<command-") || !strings.Contains(got, "/orchestrator") {
			t.Fatalf("%s reads %q: want /orchestrator, no tags", sel, got)
		}
	}
	if got := text(`.round[data-seq="1"] .body .prompt code.slash`); got != "/orchestrator" {
		t.Fatalf("the slash command shows as %q", got)
	}
	Screenshot(t, ctx, dir, "defect-slash-command")

	// A local command's output in bold: no escape in its line or body.
	Step(t, ctx, "the /model session", chromedp.Navigate(s.URL()+"/#/session/"+shortSession+"?round=1"))
	Wait(t, ctx, "round 1 open", `document.querySelector('.round[data-seq="1"] .body .block')`)
	Step(t, ctx, "open everything", chromedp.Evaluate[chromedp.Void](`for (const d of document.querySelectorAll(".round .body details")) d.open = true`))
	body := text(`.round[data-seq="1"] .body`)
	if strings.Contains(body, "\x1b") || strings.Contains(body, "[22m") || strings.Contains(body, "<command-name>") || strings.Contains(body, "<local-command-stdout>") {
		t.Fatalf("round 1 holds escapes or tags: %q", body)
	}
	if !strings.Contains(body, "/model") || !strings.Contains(body, "Kept model as Default (recommended)") {
		t.Fatalf("round 1 lost the command or its output: %q", body)
	}
	if n := Eval[int](t, ctx, `[...document.querySelectorAll('.round[data-seq="1"] .body details.meta pre.term .b')].filter(b => b.textContent.includes("Default")).length`); n != 1 {
		t.Fatalf("the output's bold run: %d", n)
	}

	// A Read of a saved terminal output: its colours, not its escapes.
	Step(t, ctx, "the long session with the Read", chromedp.Navigate(s.URL()+"/#/session/"+ansiRead+"?round=1"))
	Wait(t, ctx, "round 1 open", `document.querySelectorAll('.round[data-seq="1"] .step').length > 10`)
	Step(t, ctx, "open the Reads", chromedp.Evaluate[chromedp.Void](`for (const d of document.querySelectorAll('.round[data-seq="1"] details.call[data-tool="Read"]')) d.open = true`))
	reads := Eval[string](t, ctx, `[...document.querySelectorAll('.round[data-seq="1"] details.call[data-tool="Read"] .rich')].map(r => r.textContent).join("\n")`)
	if strings.Contains(reads, "\x1b") || strings.Contains(reads, "[39m") {
		t.Fatalf("a Read shows escapes: %q", reads[max(0, strings.Index(reads, "\x1b")-80):][:160])
	}
	if n := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="1"] details.call[data-tool="Read"] .rich pre.term .fg-green').length`); n == 0 {
		t.Fatal("the saved output's green runs are gone")
	}
	if got := Eval[string](t, ctx, `[...document.querySelectorAll('.round .line .index, details.call > summary')].map(e => e.textContent).join("\n")`); strings.Contains(got, "\x1b") {
		t.Fatal("a collapsed line holds an escape")
	}

	// A round the session does not have.
	Step(t, ctx, "round 999", chromedp.Navigate(s.URL()+"/#/session/"+sessionA+"?round=999"))
	Wait(t, ctx, "said so", `document.getElementById("no-round")`)
	if got := text("#no-round"); got != "No round 999 in this session: its rounds are 0–3." {
		t.Fatalf("round 999: %q", got)
	}

	// Revive's preview says where its budget comes from.
	Step(t, ctx, "the long session", chromedp.Navigate(s.URL()+"/#/session/"+longSession))
	Wait(t, ctx, "rounds", `document.querySelector("#timeline .round")`)
	Step(t, ctx, "revive", jsClick("#revive"))
	Wait(t, ctx, "the preview", `document.querySelector("#action-preview .budget-why")`)
	why := text("#action-preview .budget-why")
	t.Logf("revive: %s", why)
	if !strings.HasPrefix(why, "Why ") || !strings.Contains(why, "revive fits this budget, whatever the client loads today (~") || !strings.Contains(why, surgery.BudgetRule) {
		t.Fatalf("revive's budget explained as %q", why)
	}
	Screenshot(t, ctx, dir, "defect-revive-budget")
}

// A round of more blocks than a page holds opens page by page: the later
// pages' steps go on numbering from the first page's (the server cuts
// each page afresh), a step cut by a page's end goes on under its own
// number, and no block is lost between pages.
func TestBrowserRoundPages(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	id := "0b1e0000-0000-4000-8000-0000000a9e55"
	const calls = 1200 // a call and its result each: 2,401 blocks, three pages
	var b strings.Builder
	n := 0
	write := func(typ string, msg any) {
		n++
		m, _ := json.Marshal(msg)
		parent := "null"
		if n > 1 {
			parent = fmt.Sprintf(`"00000000-0000-4000-8000-%012d"`, n-1)
		}
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"type":%q,"message":%s,"uuid":"00000000-0000-4000-8000-%012d","timestamp":"2026-03-19T10:00:00.000Z","sessionId":%q,"cwd":"/w"}`+"\n", parent, typ, m, n, id)
	}
	write("user", map[string]any{"role": "user", "content": "go"})
	for i := range calls {
		write("assistant", map[string]any{"id": fmt.Sprintf("msg_%d", i), "role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("t%d", i), "name": "Bash", "input": map[string]any{"command": fmt.Sprintf("echo %d", i)}}}})
		write("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("t%d", i), "content": fmt.Sprintf("out %d", i)}}})
	}
	path := filepath.Join(t.TempDir(), id+".jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if fr, problems := st.importer.ImportFile(context.Background(), path); fr.Error != "" || len(problems) > 0 {
		t.Fatalf("import: %s %v", fr.Error, problems)
	}

	Step(t, ctx, "open the round", chromedp.Navigate(s.URL()+"/#/session/"+id+"?round=1"))
	Wait(t, ctx, "its first page", `document.querySelector('.round[data-seq="1"] .body button.more')`)
	for page := 2; Eval[bool](t, ctx, `!!document.querySelector('.round[data-seq="1"] .body button.more')`); page++ {
		Step(t, ctx, fmt.Sprintf("page %d", page), jsClick(`.round[data-seq="1"] .body button.more`))
		Wait(t, ctx, fmt.Sprintf("page %d shown", page), `!document.querySelector('.round[data-seq="1"] .body button.more:disabled')`)
		if page > 5 {
			t.Fatal("more than five pages")
		}
	}
	refs := Eval[[]string](t, ctx, `[...document.querySelectorAll('.round[data-seq="1"] .step-ref')].map(b => b.textContent)`)
	args := Eval[[]string](t, ctx, `[...document.querySelectorAll('.round[data-seq="1"] details.call .arg')].map(a => a.textContent)`)
	results := Eval[int](t, ctx, `document.querySelectorAll('.round[data-seq="1"] details.call .status-ok').length`)
	t.Logf("%d step refs, %d calls, %d with their result", len(refs), len(args), results)
	if len(args) != calls {
		t.Fatalf("%d calls shown, want %d", len(args), calls)
	}
	for i, a := range args {
		if a != fmt.Sprintf("echo %d", i) {
			t.Fatalf("call %d shows %q", i, a)
		}
	}
	for i, r := range refs {
		if r != fmt.Sprintf("1.%d", i+1) {
			t.Fatalf("step ref %d is %q, want 1.%d (refs %v…)", i, r, i+1, refs[max(0, i-3):i+1])
		}
	}
	if len(refs) != calls {
		t.Fatalf("%d step refs, want %d", len(refs), calls)
	}
}
