package http_test

import "testing"

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
