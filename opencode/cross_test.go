package opencode_test

import (
	"encoding/json"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/opencode"
)

// TestCrossCalls checks each mapping between opencode's tools and the
// other harnesses' through an export and ClaudeBlocks: what maps becomes
// the target's own call with its arguments, what does not stays as it was.
func TestCrossCalls(t *testing.T) {
	cases := []struct {
		tool, input string
		want        string // tool and arguments in opencode, "" when it becomes text
	}{
		{"Bash", `{"command":"ls -la"}`, `bash {"command":"ls -la","description":"Runs ls"}`},
		{"exec_command", `{"cmd":"make test","workdir":"/w"}`, `bash {"command":"make test","description":"Runs make","workdir":"/w"}`},
		{"shell", `{"command":["bash","-lc","go vet ./..."]}`, `bash {"command":"go vet ./...","description":"Runs go"}`},
		{"Read", `{"file_path":"/w/a.go","offset":3,"limit":10}`, `read {"filePath":"/w/a.go","limit":10,"offset":3}`},
		{"Edit", `{"file_path":"/w/a.go","old_string":"a","new_string":"b"}`, `edit {"filePath":"/w/a.go","newString":"b","oldString":"a"}`},
		{"Write", `{"file_path":"/w/b.txt","content":"x\n"}`, `write {"content":"x\n","filePath":"/w/b.txt"}`},
		{"apply_patch", "*** Begin Patch\n*** Add File: b.txt\n+x\n*** End Patch\n", `write {"content":"x\n","filePath":"b.txt"}`},
		{"apply_patch", "*** Begin Patch\n*** Update File: a.go\n@@\n-a\n+b\n*** End Patch\n", `edit {"filePath":"a.go","newString":"b","oldString":"a"}`},
		{"apply_patch", "*** Begin Patch\n*** Delete File: a.go\n*** End Patch\n", ""},
		{"WebSearch", `{"query":"x"}`, ""},
		{"bash", `{"command":"ls","description":"Lists"}`, `bash {"command":"ls","description":"Lists"}`},
	}
	for _, c := range cases {
		r := &cairn.Round{SessionID: "s", Seq: 1}
		r.Blocks = []*cairn.Block{
			{LineNo: 1, Kind: cairn.UserText, Content: "go"},
			{LineNo: 2, Kind: cairn.ToolUse, ToolName: c.tool, ToolID: "t", Content: c.input, MessageID: "m"},
			{LineNo: 3, Kind: cairn.ToolResult, ToolName: c.tool, ToolID: "t", Content: "ok"},
		}
		m := &cairn.Materialization{Sources: []*cairn.Session{{ID: "s", Agent: cairn.AgentCodex}}, Pieces: []*cairn.Piece{{Round: r, Full: true}}}
		x := &opencode.Exporter{Cwd: "/w", Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) { return p.Round.Blocks, nil }}
		s, err := x.Export(m)
		if err != nil {
			t.Fatal(err)
		}
		part := s.Messages[len(s.Messages)-1].Parts[0].Data
		got := ""
		if part["type"] == "tool" {
			args, _ := json.Marshal(part["state"].(map[string]any)["input"])
			got = part["tool"].(string) + " " + string(args)
		}
		if got != c.want {
			t.Errorf("%s %s: got %q, want %q", c.tool, c.input, got, c.want)
		}
	}
}

// TestClaudeBlocks checks opencode's calls as Claude Code's, results
// renamed with their calls, and a call of another tool left alone.
func TestClaudeBlocks(t *testing.T) {
	blocks := opencode.ClaudeBlocks([]*cairn.Block{
		{Kind: cairn.ToolUse, ToolName: "bash", ToolID: "1", Content: `{"command":"ls","workdir":"/w x"}`},
		{Kind: cairn.ToolResult, ToolName: "bash", ToolID: "1"},
		{Kind: cairn.ToolUse, ToolName: "read", ToolID: "2", Content: `{"filePath":"/a","offset":2}`},
		{Kind: cairn.ToolUse, ToolName: "edit", ToolID: "3", Content: `{"filePath":"/a","oldString":"x","newString":"y","replaceAll":true}`},
		{Kind: cairn.ToolUse, ToolName: "write", ToolID: "4", Content: `{"filePath":"/b","content":"c"}`},
		{Kind: cairn.ToolUse, ToolName: "webfetch", ToolID: "5", Content: `{"url":"u"}`},
	})
	want := []string{
		`Bash {"command":"cd '/w x' \u0026\u0026 ls"}`, `Bash `,
		`Read {"file_path":"/a","offset":2}`,
		`Edit {"file_path":"/a","new_string":"y","old_string":"x","replace_all":true}`,
		`Write {"content":"c","file_path":"/b"}`,
		`webfetch {"url":"u"}`,
	}
	for i, b := range blocks {
		if got := b.ToolName + " " + b.Content; got != want[i] {
			t.Errorf("block %d: %s, want %s", i, got, want[i])
		}
	}
}
