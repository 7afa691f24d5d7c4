package surgery

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestLedger_EveryHarness: the ledger and the index name the files a
// Codex, opencode and pi session wrote and the commands they ran, by the
// session's harness: a Codex patch's every header (a deletion as such), pi's
// path, opencode's filePath; pi's edit with opencode's field names none.
func TestLedger_EveryHarness(t *testing.T) {
	patch := `"*** Begin Patch\n*** Add File: /p/api/health.go\n+package api\n*** Delete File: /p/api/old.go\n*** End Patch\n"`
	for _, c := range []struct {
		agent string
		rows  [][4]string
		items []string
		index string
	}{
		{cairn.AgentCodex, [][4]string{
			{"tool-use", "apply_patch", `{"input":` + patch + `}`, ""},
			{"tool-result", "apply_patch", "Success. Updated the following files:\nA api/health.go\nD api/old.go", ""},
			{"tool-use", "exec_command", `{"cmd":"go test ./..."}`, ""},
			{"tool-result", "exec_command", "ok  \tapi\t0.1s", ""},
		}, []string{
			"artifact 1.1 apply_patch api/health.go",
			"artifact 1.1 deleted api/old.go (apply_patch)",
			"command 1.2 `go test ./...` → ok: ok api 0.1s",
		}, "apply_patch health.go · exec_command (`go test ./...`)"},
		{cairn.AgentPi, [][4]string{
			{"tool-use", "write", `{"path":"/p/list.txt","content":"one\n"}`, ""},
			{"tool-result", "write", "Successfully wrote 4 bytes to /p/list.txt", ""},
			{"tool-use", "edit", `{"filePath":"/p/other.txt","oldString":"a","newString":"b"}`, ""},
			{"tool-result", "edit", "done", ""},
			{"tool-use", "bash", `{"command":"wc -l list.txt"}`, ""},
			{"tool-result", "bash", "1 list.txt", ""},
		}, []string{
			"artifact 1.1 write list.txt",
			"command 1.3 `wc -l list.txt` → ok: 1 list.txt",
		}, "write list.txt · edit · bash (`wc -l list.txt`)"},
		{cairn.AgentOpencode, [][4]string{
			{"tool-use", "edit", `{"filePath":"/p/notes.txt","oldString":"beta","newString":"gamma"}`, ""},
			{"tool-result", "edit", "Edit applied successfully.", ""},
			{"tool-use", "bash", `{"command":"grep -c . notes.txt","description":"Counts"}`, ""},
			{"tool-result", "bash", "2", ""},
		}, []string{
			"artifact 1.1 edit notes.txt",
			"command 1.2 `grep -c . notes.txt` → ok: 2",
		}, "edit notes.txt · bash (`grep -c . notes.txt`)"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			r := ledgerRound(1, c.rows...)
			steps := cairn.Steps(r.Blocks, r.LastLine)
			items, _ := ledgerItems([]*cairn.Round{r}, [][]*cairn.Step{steps}, "/p", c.agent)
			var got []string
			for _, it := range items {
				got = append(got, it.Kind+" "+it.Ref()+" "+it.Text)
			}
			if !slices.Equal(got, c.items) {
				t.Errorf("ledger:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.items, "\n"))
			}
			pl := &plan{agent: c.agent}
			var us []unit
			for _, s := range steps {
				us = append(us, unit{pl: pl, step: s})
			}
			if line := runEntry(us).Line; !strings.Contains(line, c.index) {
				t.Errorf("index line %q does not say %q", line, c.index)
			}
		})
	}
}
