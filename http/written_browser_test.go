package http_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// writeSession is a Claude Code session that writes one file three times
// as releases and harnesses record it: made (Claude Code's "create"),
// edited (once refused), written over without a recorded patch (as
// Claude Code's early releases and the other harnesses' writes are),
// written over again under pi's and opencode's names, and made again
// (Claude Code's "create": the session had deleted it).
const writeSession = "6a7b0000-0000-4000-8000-00000000a417"

// A Write over an existing file is a diff (issue 46): the hunks Claude
// Code recorded with its result, numbered as in the file (the real long
// session's Write over session_live.ex, 11 hunks of a 21,162-character
// file); without them, a diff against the text the session's earlier
// calls left in the file; a Write of a new file stays the file's text.
func TestBrowserWriteOverFile(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := mustOpenPatchServer(t)
	dir := Artifacts(t)

	Step(t, ctx, "open round 1", chromedp.Navigate(s.URL()+"/#/session/"+longSession+"?round=1"))
	Wait(t, ctx, "round 1's steps", `document.querySelectorAll('.round[data-seq="1"] .step').length > 50`)
	writes := `[...document.querySelectorAll('.round[data-seq="1"] details.call[data-tool="Write"]')]`
	Step(t, ctx, "open the Write calls", chromedp.Evaluate[chromedp.Void](writes+`.forEach(d => { d.open = true })`))
	over := writes + `.find(d => d.querySelector(".path").textContent.includes("live/session_live.ex"))`
	Wait(t, ctx, "the recorded hunks", over+`.querySelector("pre.diff.recorded")`)
	Screenshot(t, ctx, dir, "write-over-recorded")
	for _, c := range []struct{ what, expr, want string }{
		{"the hunks", over + `.querySelectorAll("pre.diff .fold").length >= 11`, "true"},
		{"the first hunk", over + `.querySelector("pre.diff .fold").textContent`, "@@ -111,9 +111,13 @@\n"},
		{"an added line's number", over + `.querySelector("pre.diff .add").dataset.n`, "114"},
		{"no whole file", over + `.querySelectorAll(".rich pre:not(.diff)").length`, "0"},
		{"a new file stays its text", writes + `.find(d => d.querySelector(".path").textContent.includes("annotation_message_ref.ex")).querySelector("pre.diff")`, "null"},
	} {
		if got := Eval[string](t, ctx, `String(`+c.expr+`)`); got != c.want {
			t.Errorf("%s: %q, want %q", c.what, got, c.want)
		}
	}

	const file = "/tmp/edits/lib/tally.ex"
	mustClaudeSession(t, st, writeSession, []map[string]any{
		{"name": "Write", "input": map[string]any{"file_path": file, "content": "defmodule Tally do\n  def count(xs), do: length(xs)\nend\n"},
			"result": "File created successfully at: " + file, "toolUseResult": map[string]any{"type": "create", "filePath": file, "structuredPatch": []any{}}},
		{"name": "Edit", "input": map[string]any{"file_path": file, "old_string": "length(xs)", "new_string": "Enum.count(xs)"}, "result": "The file has been updated."},
		{"name": "Edit", "input": map[string]any{"file_path": file, "old_string": "not there", "new_string": "x"}, "result": "String to replace not found in file.", "error": true},
		{"name": "Write", "input": map[string]any{"file_path": "/tmp/edits/other.ex", "content": "other\n"}, "result": "File created successfully"},
		{"name": "Write", "input": map[string]any{"file_path": file, "content": "defmodule Tally do\n  @moduledoc \"Counts.\"\n  def count(xs), do: Enum.count(xs)\nend\n"}, "result": "File written."},
		{"name": "write", "input": map[string]any{"path": file, "content": "defmodule Tally do\n  @moduledoc \"Counts things.\"\n  def count(xs), do: Enum.count(xs)\nend\n"}, "result": "Wrote it."},
		{"name": "Write", "input": map[string]any{"file_path": file, "content": "defmodule Tally do\nend\n"},
			"result": "File created successfully at: " + file, "toolUseResult": map[string]any{"type": "create", "filePath": file, "structuredPatch": []any{}}},
	})
	Step(t, ctx, "open the session", chromedp.Navigate(s.URL()+"/#/session/"+writeSession+"?round=1"))
	calls := `[...document.querySelectorAll('.round[data-seq="1"] details.call')]`
	Wait(t, ctx, "its calls", calls+`.length === 7`)
	Step(t, ctx, "open them", chromedp.Evaluate[chromedp.Void](calls+`.forEach(d => { d.open = true })`))
	Wait(t, ctx, "the diffs against the earlier text", calls+`.filter(d => d.querySelector(".written-over pre.diff")).length === 2`)
	Screenshot(t, ctx, dir, "write-over-earlier")
	rows := func(i int) string {
		return Eval[string](t, ctx, calls+`[`+itoa(i)+`].querySelector(".written-over pre.diff") ? [...`+calls+`[`+itoa(i)+`].querySelectorAll(".written-over pre.diff > span")].map(r => r.className + r.textContent).join("") : "none"`)
	}
	// Over the made file with the applied edit (not the refused one) …
	if got, want := rows(4), "ctx  defmodule Tally do\nadd+   @moduledoc \"Counts.\"\nctx    def count(xs), do: Enum.count(xs)\nctx  end\nctx  \n"; got != want {
		t.Errorf("the Write over the edited file:\n%s\nwant\n%s", got, want)
	}
	// … and over that Write, under another harness's name and input.
	if got := rows(5); !strings.Contains(got, "del-   @moduledoc \"Counts.\"\nadd+   @moduledoc \"Counts things.\"\n") {
		t.Errorf("the write over the Write:\n%s", got)
	}
	// A new file, and the file made again (Claude Code says it created
	// it, after the session deleted it): its text, no diff.
	Step(t, ctx, "settle", chromedp.Sleep(300*time.Millisecond))
	for _, i := range []int{0, 3, 6} {
		if got := rows(i); got != "none" {
			t.Errorf("call %d, a new file, is a diff: %s", i, got)
		}
	}
}
