package claudetest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// The 1.0.x sessions of testdata/shapes/claude-1.0 are made by this release
// in these fixed folders, recorded in the files.
const (
	oldVersion = "1.0.51"
	version20  = "2.0.30" // testdata/shapes/claude-2.0
	oldHome    = "/tmp/cairn-old/home"
	oldProject = "/tmp/cairn-old/proj"
	oldOut     = "../../testdata/shapes/claude-1.0"
)

// oldBinary returns the 1.0.x client ($CAIRN_CLAUDE_1_0, else where
// `npm install --prefix /tmp/claude-old/1.0.51 @anthropic-ai/claude-code@1.0.51`
// puts it), "" when it is not there or is another release. It is a node
// program (cli.js); node 20 runs it.
func oldBinary() string {
	bin := os.Getenv("CAIRN_CLAUDE_1_0")
	if bin == "" {
		bin = "/tmp/claude-old/" + oldVersion + "/node_modules/.bin/claude"
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), oldVersion+" ") {
		return ""
	}
	return bin
}

// oldSummary answers the old client's compaction requests.
const oldSummary = `<summary>
1. Primary Request and Intent: keep an inventory of parts in parts.txt and check it with the shell.
2. Files: parts.txt lists the parts, one a line; numbers.txt holds 1 to 3000.
3. Errors and fixes: none.
4. Pending Tasks: none.
</summary>`

// Prompts of the 1.0.x sessions, and of the resume that records what the
// client sends for each.
const (
	oldStock   = "Take stock of the inventory in this folder"
	oldFourth  = "Add a fourth part to the inventory"
	oldAfter   = "After the compaction, check the count of parts"
	oldWork    = "Work through the numbered parts one by one"
	oldAudit   = "Audit the parts with a subagent"
	oldSub     = "SUBAGENT: count the parts listed in parts.txt"
	oldThanks  = "Thanks. Which part was added last?"
	oldResumed = "What is left to do now?"
)

func oldTurns() []fakeapi.Turn {
	bash := func(cmd, desc string) []fakeapi.Block {
		return []fakeapi.Block{{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": cmd, "description": desc}}}
	}
	text := func(s string) []fakeapi.Block { return []fakeapi.Block{{Type: "text", Text: s}} }
	var work [][]fakeapi.Block
	for i := 1; i <= 6; i++ {
		work = append(work, bash(fmt.Sprintf("printf 'part %%d: %%s\\n' %d \"$(seq -s ' ' 1 400 | head -c 1200)\" >> numbered.txt && wc -l numbered.txt", i), fmt.Sprintf("Add numbered part %d", i)))
	}
	work = append(work, text("The six numbered parts are in numbered.txt."))
	return []fakeapi.Turn{
		{Match: oldStock, Steps: [][]fakeapi.Block{
			bash("ls -la", "List the folder"),
			bash("seq 1 3000 > numbers.txt && printf 'part %s\\n' 1 2 3 > parts.txt && cat numbers.txt parts.txt", "Write and show the inventory"),
			bash(`grep -c "part" parts.txt`, "Count the parts"),
			text("The inventory lists three parts in parts.txt (and numbers.txt holds 1 to 3000)."),
		}},
		{Match: oldFourth, Steps: [][]fakeapi.Block{
			bash("cat >> parts.txt <<'EOF'\npart 4\nEOF\ncat parts.txt", "Append part 4"),
			text("parts.txt now lists four parts."),
		}},
		{Match: oldAfter, Steps: [][]fakeapi.Block{
			bash("wc -l < parts.txt", "Count the lines"),
			text("Four parts, as before the compaction."),
		}},
		{Match: oldWork, Steps: work},
		{Match: oldSub, Steps: [][]fakeapi.Block{
			bash("wc -l parts.txt", "Count the parts"),
			text("parts.txt lists 4 parts."),
		}},
		{Match: oldAudit, Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "Task", Input: map[string]any{"description": "Count the parts", "prompt": oldSub}}},
			// Twice: this release sends its first exchange again in the
			// next request (seen in every -p run), which the fake counts.
			text("The subagent counted four parts."),
			text("The subagent counted four parts."),
		}},
		{Match: oldThanks, Steps: [][]fakeapi.Block{text("Part 4, appended with a heredoc.")}},
		{Match: oldResumed, Steps: [][]fakeapi.Block{text("Nothing is left to do.")}},
	}
}

// seedOldHome writes a scratch home's .claude.json as this release wants
// it: onboarding done, the project trusted with its allowed tools.
func seedOldHome(t *testing.T, home string) {
	claudetest.SeedHome(t, home, oldProject, oldVersion)
	p := filepath.Join(home, ".claude.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["projects"] = map[string]any{oldProject: map[string]any{
		"allowedTools": []string{"Bash", "Task"}, "hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true,
		"mcpContextUris": []string{}, "mcpServers": map[string]any{}, "enabledMcpjsonServers": []string{},
		"disabledMcpjsonServers": []string{}, "ignorePatterns": []string{}, "history": []string{},
	}}
	if data, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
