package claudecode

import (
	"encoding/json"
	"testing"
)

// TestToClaudeCall maps Codex calls to Claude Code's tools: shells to Bash,
// one-file patches to Write or Edit; anything else does not map.
func TestToClaudeCall(t *testing.T) {
	for _, c := range []struct {
		name, tool, input string
		want              string // tool and input as JSON; "" = no mapping
	}{
		{"ExecCommand", "exec_command", `{"cmd":"go test ./..."}`, `Bash {"command":"go test ./..."}`},
		{"ShellArgv", "shell", `{"command":["bash","-lc","ls -la"],"workdir":"/src/app"}`, `Bash {"command":"cd /src/app \u0026\u0026 ls -la"}`},
		{"ShellPlainArgv", "shell", `{"command":["ls","-la"]}`, `Bash {"command":"ls -la"}`},
		{"AddFile", "apply_patch", "*** Begin Patch\n*** Add File: a.go\n+package a\n+\n*** End Patch\n", `Write {"content":"package a\n\n","file_path":"a.go"}`},
		{"UpdateOneHunk", "apply_patch", "*** Begin Patch\n*** Update File: a.go\n@@\n func f() {\n-\treturn 1\n+\treturn 2\n }\n*** End Patch", `Edit {"file_path":"a.go","new_string":"func f() {\n\treturn 2\n}","old_string":"func f() {\n\treturn 1\n}"}`},
		{"TwoFiles", "apply_patch", "*** Begin Patch\n*** Add File: a.go\n+a\n*** Add File: b.go\n+b\n*** End Patch", ""},
		{"TwoHunks", "apply_patch", "*** Begin Patch\n*** Update File: a.go\n@@\n-a\n+b\n@@\n-c\n+d\n*** End Patch", ""},
		{"Delete", "apply_patch", "*** Begin Patch\n*** Delete File: a.go\n*** End Patch", ""},
		{"WebSearch", "web_search", `{"query":"go 1.26"}`, ""},
		{"NotJSON", "exec_command", `{cmd`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			name, args, ok := toClaudeCall(c.tool, c.input)
			got := ""
			if ok {
				raw, _ := json.Marshal(args)
				got = name + " " + string(raw)
			}
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
