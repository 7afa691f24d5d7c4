package http_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A real Edit whose result says only "has been updated successfully" is
// numbered from the hunks Claude Code recorded with it (structuredPatch,
// read from the result's raw line as cmd/cairn serves it): the file's
// lines around the edit, each with its line number.
func TestBrowserRecordedEditLines(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, _ := mustOpenPatchServer(t)
	call := openEdits(t, ctx, s.URL(), "alias Spotter.Transcripts.{Annotation, Commit,")
	Wait(t, ctx, "the recorded hunks", call+`.querySelector("pre.diff.recorded")`)
	Screenshot(t, ctx, Artifacts(t), "recorded-edit-lines")
	pre := call + `.querySelector("pre.diff.recorded")`
	for _, c := range []struct{ what, expr, want string }{
		{"the hunk's header", pre + `.querySelector(".fold").textContent`, "@@ -2,7 +2,7 @@\n"},
		{"the file's lines around the edit", pre + `.querySelector(".ctx").textContent`, "    use Phoenix.LiveView\n"},
		{"the first line's number", pre + `.querySelector(".ctx").dataset.n`, "2"},
		{"the removed line's number", pre + `.querySelector(".del").dataset.n`, "5"},
		{"the added line's number", pre + `.querySelector(".add").dataset.n`, "5"},
		{"the number drawn", `getComputedStyle(` + pre + `.querySelector(".add"), "::before").content`, `"5"`},
		{"the added word marked", `[...` + pre + `.querySelectorAll(".add .wd")].map(w => w.textContent).join("")`, "AnnotationMessageRef, "},
		{"the last line's number", `[...` + pre + `.querySelectorAll("span[data-n]")].pop().dataset.n`, "8"},
	} {
		if got := Eval[string](t, ctx, `String(`+c.expr+`)`); got != c.want {
			t.Errorf("%s: %q, want %q", c.what, got, c.want)
		}
	}
}

// A real MultiEdit (claude-code-viewer's session, six edits of
// CLAUDE.md) is shown as the three hunks Claude Code recorded, numbered
// as in the file, in place of six diffs without numbers.
func TestBrowserRecordedMultiEdit(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := mustOpenPatchServer(t)
	mustImportShared(t, st, "d-kimuson__claude-code-viewer")
	Step(t, ctx, "open the session", chromedp.Navigate(s.URL()+"/#/session/"+ccvSession))
	Wait(t, ctx, "rounds listed", `document.querySelectorAll("#timeline .round").length > 0`)
	seq := evalAwait(t, ctx, `(async () => { for (const r of view.rounds) { const d = await api("GET", "/api/sessions/"+view.id+"/rounds/"+r.seq); if (d.blocks.some(b => b.tool_name === "MultiEdit" && b.kind === "tool-use")) return String(r.seq); } return "" })()`)
	if seq == "" {
		t.Fatal("no round calls MultiEdit")
	}
	Step(t, ctx, "open the round", chromedp.Navigate(s.URL()+"/#/session/"+ccvSession+"?round="+seq))
	call := `document.querySelector('.round[data-seq="` + seq + `"] details.call[data-tool="MultiEdit"]')`
	Wait(t, ctx, "the call", call)
	Step(t, ctx, "open it", chromedp.Evaluate[chromedp.Void](call+`.open = true`))
	Wait(t, ctx, "the recorded hunks", call+`.querySelector("pre.diff.recorded")`)
	Screenshot(t, ctx, Artifacts(t), "recorded-multiedit")
	for _, c := range []struct{ what, expr, want string }{
		{"one diff, not six", call + `.querySelectorAll("pre.diff").length`, "1"},
		{"the hunks", `[...` + call + `.querySelectorAll("pre.diff .fold")].filter(f => f.textContent.startsWith("@@")).map(f => f.textContent.trim()).join(" | ")`, "@@ -1,44 +1,68 @@ | @@ -62,16 +86,18 @@ | @@ -93,5 +119,7 @@"},
		{"the first change's line", call + `.querySelector("pre.diff .add").dataset.n`, "4"},
		{"its words marked", `[...` + call + `.querySelector("pre.diff .add").querySelectorAll(".wd")].map(w => w.textContent).join("")`, "15.5.2"},
	} {
		if got := Eval[string](t, ctx, `String(`+c.expr+`)`); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.what, got, c.want)
		}
	}
}
