package cli

import (
	"strings"
	"testing"
)

// TestReviveRoundZero (issue 41 c): a fork of a session compacted in its
// round (159) starts with the client's summary and works 61 steps before
// its first typed prompt. Revive carries that work as round 0: its steps
// are in full, or named by 0.STEP on an index line under a small budget,
// the ledger holds its commands, and inject prints a step of it.
func TestReviveRoundZero(t *testing.T) {
	const id = "7a11c0de-0000-4000-8000-000000000159"
	c := newCLI(t)
	c.run("import", "../../testdata/long/"+id+".jsonl")
	full := c.run("revive", id, "--format", "markdown")
	for _, want := range []string{"## Round 000", "- 0.28 `printf '1 2 3\\n4 5 6\\n' | awk -f mods/mod_018.awk` → failed: awk: mods/mod_018.awk: line 3: syntax error"} {
		if !strings.Contains(full, want) {
			t.Errorf("revive: no %q", want)
		}
	}
	small := c.run("revive", id, "--format", "markdown", "--budget", "52000")
	if !strings.Contains(small, "Round 0: ") || !strings.Contains(small, "\n- 0.") {
		t.Errorf("revive --budget 52000 names no step of round 0:\n%s", small)
	}
	step := c.run("inject", id, "0.28", "--format", "markdown")
	if !strings.Contains(step, "mods/mod_018.awk") || !strings.Contains(step, "syntax error") {
		t.Errorf("inject 0.28:\n%s", step)
	}
}
