package codex

import "testing"

// TestToCodexCall maps Claude Code calls to Codex's tools: Bash and reads
// to exec_command, Edit and Write to apply_patch; others do not map.
func TestToCodexCall(t *testing.T) {
	for _, c := range []struct {
		name, tool, input string
		cmd, patch        string
		ok                bool
	}{
		{"Bash", "Bash", `{"command":"go test ./...","description":"test"}`, "go test ./...", "", true},
		{"Read", "Read", `{"file_path":"/src/a b.go"}`, "cat -n '/src/a b.go'", "", true},
		{"ReadRange", "Read", `{"file_path":"/src/a.go","offset":10,"limit":5}`, "sed -n '10,14p' /src/a.go", "", true},
		{"Grep", "Grep", `{"pattern":"TODO","path":"src"}`, "rg -n TODO src", "", true},
		{"Glob", "Glob", `{"pattern":"**/*.go"}`, "rg --files -g '**/*.go'", "", true},
		{"Edit", "Edit", `{"file_path":"a.go","old_string":"return 1","new_string":"return 2"}`, "", "*** Begin Patch\n*** Update File: a.go\n@@\n-return 1\n+return 2\n*** End Patch\n", true},
		{"Write", "Write", `{"file_path":"a.go","content":"package a\n"}`, "", "*** Begin Patch\n*** Add File: a.go\n+package a\n*** End Patch\n", true},
		{"Agent", "Agent", `{"prompt":"look around"}`, "", "", false},
		{"EditWithoutOld", "Edit", `{"file_path":"a.go","old_string":"","new_string":"x"}`, "", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := toCodexCall(c.tool, c.input)
			if ok != c.ok || got.cmd != c.cmd || got.patch != c.patch {
				t.Errorf("got %+v %v, want cmd %q patch %q %v", got, ok, c.cmd, c.patch, c.ok)
			}
		})
	}
}
