package export

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// input is a tool input as the client writes it: JSON with the keys in
// the order given.
func input(t *testing.T, kv ...any) string {
	t.Helper()
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[i])
		v, err := json.Marshal(kv[i+1])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

func TestToolInput(t *testing.T) {
	heredoc := "cat > notes.md <<'EOF'\n# Notes\n\n- \"quoted\" and `ticks`\n\tindented\nEOF\ngo test ./... 2>&1 | tail -3"
	for _, c := range []struct {
		name, input, want string
	}{
		{"quotes", input(t, "command", `grep -r "foo" src`, "description", "Find foo"),
			"```sh\ngrep -r \"foo\" src\n```\n\ndescription: Find foo"},
		{"heredoc", input(t, "command", heredoc, "timeout", 120000),
			"```sh\n" + heredoc + "\n```\n\ntimeout: 120000"},
		{"fence inside", input(t, "command", "printf '```\\n'\necho ````"),
			"`````sh\nprintf '```\\n'\necho ````\n`````"},
		{"path", input(t, "file_path", "/tmp/proj/naïve dir/ünïcode.go", "offset", 10, "limit", 5),
			"file_path: /tmp/proj/naïve dir/ünïcode.go\noffset: 10\nlimit: 5"},
		{"edit", input(t, "file_path", "/a/b.go", "old_string", "func a() {\n\treturn 1\n}", "new_string", "x", "replace_all", false),
			"file_path: /a/b.go\n\nold_string:\n\n```\nfunc a() {\n\treturn 1\n}\n```\n\nnew_string: x\nreplace_all: false"},
		{"edge spaces", input(t, "old_string", "  indented", "new_string", ""),
			"old_string:\n\n```\n  indented\n```\n\nnew_string: "},
		{"unicode", input(t, "command", "echo 'héllo → 世界' | wc -m", "description", "Zähle Zeichen ✓"),
			"```sh\necho 'héllo → 世界' | wc -m\n```\n\ndescription: Zähle Zeichen ✓"},
		{"nested", input(t, "todos", []map[string]any{{"content": "a <b> & c", "status": "pending"}}),
			`todos: [{"content":"a <b> & c","status":"pending"}]`},
		{"key order", `{"b": {"z": 1, "a": [1, "x", {"k": true}]}, "a": null, "n": 1.50}`,
			"b: {\"z\":1,\"a\":[1,\"x\",{\"k\":true}]}\na: null\nn: 1.50"},
		{"argv", input(t, "command", []string{"bash", "-lc", "ls -la && echo \"done\""}, "workdir", "/w"),
			"```sh\nls -la && echo \"done\"\n```\n\nworkdir: /w"},
		{"argv words", input(t, "command", []string{"rg", "-n", "a b", "it's"}),
			"```sh\nrg -n 'a b' 'it'\\''s'\n```"},
		{"empty", `{}`, "(no input)"},
		{"not an object", `["x"]`, "```json\n[\"x\"]\n```"},
		{"not JSON", `{"command":"ls"`, "```json\n{\"command\":\"ls\"\n```"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ToolInput(c.input); got != c.want {
				t.Errorf("ToolInput(%s) =\n%s\nwant:\n%s", c.input, got, c.want)
			}
		})
	}
}

// TestRoundMarkdown_ToolInputAsText: show and inject print a call's input
// as text, the command as it was run, never as escaped JSON.
func TestRoundMarkdown_ToolInputAsText(t *testing.T) {
	cmd := "python3 - <<'PY'\nprint(\"a\\tb\")\nPY"
	r := &cairn.Round{Seq: 3, Blocks: []*cairn.Block{
		{Kind: cairn.ToolUse, Role: "assistant", ToolName: "Bash", Content: input(t, "command", cmd)},
	}}
	var b strings.Builder
	if err := RoundMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "## Round 003\n\n**Tool call:** `Bash`\n\n```sh\n" + cmd + "\n```\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
