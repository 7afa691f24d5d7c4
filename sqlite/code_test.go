package sqlite

import (
	"testing"

	"cairn"
)

// TestCodes: every kind and role cairn knows is stored as a number and
// read back as itself, one this cairn does not know as its text; the SQL
// that names the tool-use code (blocks_tool_use and the counts it serves)
// names kindToolUse's.
func TestCodes(t *testing.T) {
	kinds := []cairn.BlockKind{cairn.UserText, cairn.AssistantText, cairn.Thinking, cairn.ToolUse, cairn.ToolResult,
		cairn.MetaText, cairn.CompactionBlock}
	seen := map[any]bool{}
	for _, k := range kinds {
		c := kindCode(k)
		n, ok := c.(int)
		if !ok || seen[c] {
			t.Errorf("kind %s stored as %#v: want a number of its own", k, c)
		}
		seen[c] = true
		if got := kindOf(int64(n)); got != k {
			t.Errorf("kind %s reads back as %q", k, got)
		}
	}
	if c := kindCode("hologram"); c != "hologram" || kindOf(c) != "hologram" {
		t.Errorf("an unknown kind is stored as %#v", c)
	}
	for _, r := range []string{"user", "assistant", "system"} {
		c, ok := roleCode(r).(int)
		if !ok || roleOf(int64(c)) != r {
			t.Errorf("role %s stored as %#v", r, roleCode(r))
		}
	}
	if c := roleCode("developer"); c != "developer" || roleOf(c) != "developer" {
		t.Errorf("an unknown role is stored as %#v", c)
	}
	if kindCode(cairn.ToolUse) != 4 {
		t.Errorf("tool-use is %v; blocks_tool_use, sessionToolCalls and findRounds name 4", kindCode(cairn.ToolUse))
	}
}
