package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// editSession is a Claude Code session whose calls edit files the ways
// every harness records: an Edit whose result quotes the edited lines
// numbered, an Edit the tool refused, Gemini CLI's replace, opencode's
// edit and Codex's apply_patch (their input shapes, under their names).
const editSession = "6a7b0000-0000-4000-8000-0000000ed175"

// mustClaudeSession writes a Claude Code transcript of id, one round: a
// prompt, then each call of calls ({name, input, result, error, toolUseResult}) as an
// assistant message and its result, or ({text}) an answer, and imports it.
func mustClaudeSession(tb testing.TB, st *Store, id string, calls []map[string]any) {
	tb.Helper()
	var data []byte
	n := 0
	line := func(v map[string]any) {
		v["sessionId"], v["cwd"], v["version"] = id, "/tmp/edits", "2.1.330"
		v["timestamp"] = fmt.Sprintf("2026-03-01T09:%02d:00Z", n)
		v["uuid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
		n++
		b, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		data = append(append(data, b...), '\n')
	}
	line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Edit the files."}})
	for i, c := range calls {
		if text, ok := c["text"]; ok {
			line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%d", i+1), "role": "assistant", "model": "m",
				"content": []map[string]any{{"type": "text", "text": text}}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}})
			continue
		}
		tid := fmt.Sprintf("toolu_%d", i+1)
		line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%d", i+1), "role": "assistant", "model": "m",
			"content": []map[string]any{{"type": "tool_use", "id": tid, "name": c["name"], "input": c["input"]}},
			"usage":   map[string]any{"input_tokens": 10, "output_tokens": 5}}})
		res := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []map[string]any{
			{"type": "tool_result", "tool_use_id": tid, "content": c["result"], "is_error": c["error"] == true}}}}
		if r, ok := c["toolUseResult"]; ok {
			res["toolUseResult"] = r
		}
		line(res)
	}
	mustImportLines(tb, st, id, data)
}

// mustImportLines writes data as the transcript of session id and imports
// it.
func mustImportLines(tb testing.TB, st *Store, id string, data []byte) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), id+".jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	if fr, problems := st.importer.ImportFile(context.Background(), path); fr.Error != "" || len(problems) > 0 {
		tb.Fatalf("import %s: %s %v", path, fr.Error, problems)
	}
}

// Edits are diffs (issue 46, point 7): numbered where the result tells
// the lines, the changed words marked, a refused edit shown as not
// applied after its error, every harness's edit and patch alike.
func TestBrowserEditDiffs(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustClaudeSession(t, st, editSession, []map[string]any{
		{"name": "Edit", "input": map[string]any{"file_path": "/tmp/edits/a.go", "old_string": "func a() int {\n\treturn 2\n}", "new_string": "func a() int {\n\treturn 3\n}"},
			"result": "The file /tmp/edits/a.go has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n    11→\n    12→func a() int {\n    13→\treturn 3\n    14→}"},
		{"name": "Edit", "input": map[string]any{"file_path": "/tmp/edits/b.go", "old_string": "x := old", "new_string": "x := new"},
			"result": "<tool_use_error>String to replace not found in file.\nString: x := old</tool_use_error>", "error": true},
		{"name": "replace", "input": map[string]any{"file_path": "/tmp/edits/c.py", "old_string": "print('hello world')", "new_string": "print('hello there')"}, "result": "Successfully modified file: /tmp/edits/c.py (1 replacements)."},
		{"name": "edit", "input": map[string]any{"filePath": "/tmp/edits/d.ts", "oldString": "const limit = 10;", "newString": "const limit = 20;"}, "result": "Edit applied successfully."},
		{"name": "apply_patch", "input": map[string]any{"input": "*** Begin Patch\n*** Update File: e.rs\n@@ -40,3 +40,3 @@\n fn main() {\n-    let n = 1;\n+    let n = 2;\n }\n*** Add File: f.rs\n+pub fn f() {}\n*** End Patch"}, "result": "Success. Updated the following files:\nM e.rs\nA f.rs"},
	})

	Step(t, ctx, "open the session", chromedp.Navigate(s.URL()+"/#/session/"+editSession+"?round=1"))
	Wait(t, ctx, "round 1 open", `document.querySelectorAll('.round[data-seq="1"] details.call').length === 5`)
	Step(t, ctx, "expand all", chromedp.Click(chromedp.CSS(`.round[data-seq="1"] .expand-all`)))
	Wait(t, ctx, "diffs", `document.querySelectorAll('.round[data-seq="1"] pre.diff').length === 5`)
	Screenshot(t, ctx, Artifacts(t), "edit-diffs")

	call := func(i int) string {
		return fmt.Sprintf(`document.querySelectorAll('.round[data-seq="1"] details.call')[%d]`, i)
	}
	for _, c := range []struct{ what, expr, want string }{
		// The Edit: a unified diff numbered from the result's snippet, the
		// changed word marked on both lines.
		{"the removed line", call(0) + `.querySelector("pre.diff .del").textContent`, "- \treturn 2\n"},
		{"the added line", call(0) + `.querySelector("pre.diff .add").textContent`, "+ \treturn 3\n"},
		{"the removed word", call(0) + `.querySelector("pre.diff .del .wd").textContent`, "2"},
		{"the added word", call(0) + `.querySelector("pre.diff .add .wd").textContent`, "3"},
		{"the first line's number", call(0) + `.querySelector("pre.diff.numbered .ctx").dataset.n`, "12"},
		{"the added line's number", call(0) + `.querySelector("pre.diff .add").dataset.n`, "13"},
		{"the number drawn in the gutter", `getComputedStyle(` + call(0) + `.querySelector("pre.diff .add"), "::before").content`, `"13"`},
		// The refused Edit: its error, then what was asked, not red and green.
		{"the refusal first", call(1) + `.querySelector(".rich").textContent`, "String: x := old</tool_use_error>Not applied: the tool refused this edit"},
		{"the refused diff marked", call(1) + `.querySelector("pre.diff").className`, "diff not-applied"},
		{"no colour on a refused line", `getComputedStyle(` + call(1) + `.querySelector("pre.diff .add")).backgroundColor`, "rgba(0, 0, 0, 0)"},
		// Gemini CLI's replace and opencode's edit.
		{"replace's word", call(2) + `.querySelector("pre.diff .add .wd").textContent`, "there"},
		{"edit's word", call(3) + `.querySelector("pre.diff .add .wd").textContent`, "20"},
		// Codex's patch: a file header, hunks numbered from their header.
		{"the patch's file", call(4) + `.querySelector("pre.diff.patch .file").textContent`, "Update File: e.rs"},
		{"the patch's added line", call(4) + `.querySelector("pre.diff.patch .add").textContent`, "+     let n = 2;"},
		{"the patch's line number", call(4) + `.querySelector("pre.diff.patch .add").dataset.n`, "41"},
		{"the patch's word", call(4) + `.querySelector("pre.diff.patch .del .wd").textContent`, "1"},
		{"the added file", `[...document.querySelectorAll('.round[data-seq="1"] pre.diff.patch .file')].map(f => f.textContent).join("|")`, "Update File: e.rs\n|Add File: f.rs\n"},
	} {
		if got := Eval[string](t, ctx, c.expr); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.what, got, c.want)
		}
	}
	// A line number is drawn, not text: copying a diff copies its lines.
	if got := Eval[string](t, ctx, call(0)+`.querySelector("pre.diff").textContent`); strings.Contains(got, "13") {
		t.Errorf("the diff's text holds its numbers: %q", got)
	}
	// Begin and End Patch are the patch's envelope, not its content.
	if got := Eval[string](t, ctx, call(4)+`.querySelector("pre.diff.patch").textContent`); strings.Contains(got, "Begin Patch") {
		t.Errorf("the patch shows its envelope: %q", got)
	}
}
