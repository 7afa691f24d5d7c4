package http_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// hostileSession is a session whose text, tool inputs and outputs try to
// inject markup into the page, and that exercises the rich views: a Bash
// with ANSI colours, an Edit, a TodoWrite.
const hostileSession = "6a7b0000-0000-4000-8000-00000000bad1"

// mustHostileSession writes and imports hostileSession.
func mustHostileSession(tb testing.TB, st *Store) {
	tb.Helper()
	at := "2026-03-01T09:00:0%dZ"
	n := 0
	line := func(v map[string]any) []byte {
		v["sessionId"], v["cwd"], v["version"] = hostileSession, "/tmp/hostile", "2.1.330"
		v["timestamp"] = strings.Replace(at, "%d", string(rune('0'+n%10)), 1)
		v["uuid"] = "00000000-0000-4000-8000-0000000000" + string(rune('a'+n/10)) + string(rune('0'+n%10))
		n++
		b, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		return append(b, '\n')
	}
	user := func(content any) []byte {
		return line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": content}})
	}
	assistant := func(id string, content ...map[string]any) []byte {
		return line(map[string]any{"type": "assistant", "message": map[string]any{"id": id, "role": "assistant", "model": "m", "content": content,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}})
	}
	result := func(id, text string) []byte {
		return user([]map[string]any{{"type": "tool_result", "tool_use_id": id, "content": text}})
	}
	var data []byte
	data = append(data, user("Show me <img src=x onerror=\"document.title='pwned-user'\"> and **bold**")...)
	data = append(data, assistant("msg_1",
		map[string]any{"type": "text", "text": "# Plan\n\nHere is <script>document.title='pwned-script'</script> and <img src=x onerror=\"document.title='pwned-img'\">.\n\n- a [link](javascript:document.title='pwned-link')\n- `code <b>`\n\n```go\nfunc main() { // hi\n}\n```"},
		map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "go test ./... <img src=x onerror=alert(1)>", "description": "Run the tests"}})...)
	data = append(data, result("toolu_1", "\x1b[32mok\x1b[0m  cairn 0.4s\n\x1b[1;31mFAIL\x1b[0m <img src=x onerror=\"document.title='pwned-out'\">")...)
	data = append(data, assistant("msg_2",
		map[string]any{"type": "tool_use", "id": "toolu_2", "name": "Edit", "input": map[string]any{"file_path": "/tmp/hostile/a.go", "old_string": "a := 1\nb := 2", "new_string": "a := 1\nb := 3 // <img src=x onerror=alert(2)>"}})...)
	data = append(data, result("toolu_2", "The file has been updated.")...)
	data = append(data, assistant("msg_3",
		map[string]any{"type": "tool_use", "id": "toolu_3", "name": "TodoWrite", "input": map[string]any{"todos": []map[string]any{
			{"content": "write <b>tests</b>", "status": "completed"}, {"content": "ship", "status": "in_progress"}}}})...)
	data = append(data, result("toolu_3", "Todos have been modified")...)
	data = append(data, assistant("msg_4",
		map[string]any{"type": "tool_use", "id": "toolu_4", "name": "Write", "input": map[string]any{"file_path": "/tmp/hostile/b.go", "content": "package b\n\n// B is <b>bold</b>\nfunc B() string { return \"b\" }\n"}},
		map[string]any{"type": "tool_use", "id": "toolu_5", "name": "Read", "input": map[string]any{"file_path": "/tmp/hostile/b.go"}},
		map[string]any{"type": "tool_use", "id": "toolu_6", "name": "MultiEdit", "input": map[string]any{"file_path": "/tmp/hostile/b.go", "edits": []map[string]any{
			{"old_string": "package b", "new_string": "package bee"}, {"old_string": "return \"b\"", "new_string": "return \"bee\""}}}})...)
	data = append(data, result("toolu_4", "File created successfully at: /tmp/hostile/b.go")...)
	data = append(data, result("toolu_5", "     1\tpackage b\n     2\t\n     3\t// B is <b>bold</b>\n     4\tfunc B() string { return \"b\" }")...)
	data = append(data, result("toolu_6", "Applied 2 edits")...)
	data = append(data, assistant("msg_5", map[string]any{"type": "text", "text": "Done."})...)
	mustImportLines(tb, st, hostileSession, data)
}

// A transcript cannot inject markup: markdown, ANSI output, diffs and todo
// lists are built as text nodes, links only http(s).
func TestBrowserRender(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	mustHostileSession(t, st)
	dir := Artifacts(t)

	Step(t, ctx, "open the hostile session", chromedp.Navigate(s.URL()+"/#/session/"+hostileSession+"?round=1"))
	Wait(t, ctx, "round 1 open", `document.querySelectorAll('.round[data-seq="1"] details.call').length === 6`)
	Step(t, ctx, "expand all", chromedp.Click(chromedp.CSS(`.round[data-seq="1"] .expand-all`)))
	Wait(t, ctx, "rich views", `document.querySelector('.round[data-seq="1"] pre.diff') && document.querySelector('.round[data-seq="1"] .todos') && document.querySelector('.round[data-seq="1"] pre.term')`)
	Screenshot(t, ctx, dir, "render")

	body := `document.querySelector('.round[data-seq="1"] .body')`
	if n := Eval[int](t, ctx, body+`.querySelectorAll("img, script, b").length`); n != 0 {
		t.Fatalf("%d elements injected from the transcript", n)
	}
	// The tab is named after the session, as text: a script that ran
	// would have named it pwned-….
	if got := Eval[string](t, ctx, `document.title`); got != "Show me <img src=x onerror=\"document.title='pwned-user'\"> and **bold** · round 1 · cairn" {
		t.Fatalf("title %q: a script ran", got)
	}
	if n := Eval[int](t, ctx, body+`.querySelectorAll('a[href^="javascript"]').length`); n != 0 {
		t.Fatal("a javascript: link was made")
	}
	for _, c := range []struct{ what, expr, want string }{
		{"a heading", `.querySelector(".md h3").textContent`, "Plan"},
		{"inline code", `.querySelector(".md li code").textContent`, "code <b>"},
		{"bold in the prompt", `.querySelector(".block.user strong").textContent`, "bold"},
		{"the markup as text", `.querySelector(".block.assistant .md p").textContent`, "<script>"},
		{"green ANSI", `.querySelector("pre.term .fg-green").textContent`, "ok"},
		{"no escape left", `.querySelector("pre.term").textContent`, "0.4s\nFAIL <img"},
		{"an added line", `.querySelector("pre.diff .add").textContent`, "+ b := 3"},
		{"a removed line", `.querySelector("pre.diff .del").textContent`, "- b := 2"},
		{"a done todo", `.querySelector(".todos .todo.completed").textContent`, "write <b>tests</b>"},
		{"the Bash description", `.querySelector("details.call[data-tool=Bash] .desc").textContent`, "Run the tests"},
		{"highlighted code", `.querySelector(".md pre.code .tok-k").textContent`, "func"},
		{"Write as code", `.querySelector("details.call[data-tool=Write] pre.code.lang-go .tok-k").textContent`, "package"},
		{"Write's comment", `.querySelector("details.call[data-tool=Write] pre.code .tok-c").textContent`, "// B is <b>bold</b>"},
		{"Read without its line numbers", `.querySelector("details.call[data-tool=Read] pre.code").textContent`, "package b\n\n// B is"},
		{"Read from line 1", `.querySelector("details.call[data-tool=Read] .path").textContent`, "from line 1"},
		{"MultiEdit's first diff", `.querySelectorAll("details.call[data-tool=MultiEdit] pre.diff")[0].textContent`, "- package b\n+ package bee"},
		{"MultiEdit's second diff", `.querySelectorAll("details.call[data-tool=MultiEdit] pre.diff")[1].querySelector(".add").textContent`, "bee"},
	} {
		if got := Eval[string](t, ctx, body+c.expr); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.what, got, c.want)
		}
	}
	if n := Eval[int](t, ctx, body+`.querySelector("pre.term").textContent.indexOf("\x1b")`); n != -1 {
		t.Fatal("an escape sequence reached the page")
	}
}
