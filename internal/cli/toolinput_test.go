package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestShowInject_ToolInputAsText: show and inject print a tool call's input
// as it was run (the real client 1.0.51's heredoc and quoted grep), not as
// escaped JSON; show --json keeps the JSON.
func TestShowInject_ToolInputAsText(t *testing.T) {
	c := newCLI(t)
	paths, err := filepath.Glob("../../testdata/shapes/claude-1.0/compact/*.jsonl")
	if err != nil || len(paths) != 1 {
		t.Fatalf("the 1.0.51 compact session: %v %v", paths, err)
	}
	c.run("import", paths[0])
	id := strings.TrimSuffix(filepath.Base(paths[0]), ".jsonl")
	heredoc := "```sh\ncat >> parts.txt <<'EOF'\npart 4\nEOF\ncat parts.txt\n```\n\ndescription: Append part 4\n"
	grep := "```sh\ngrep -c \"part\" parts.txt\n```\n\ndescription: Count the parts\n"
	for _, args := range [][]string{{"show", id}, {"show", id, "2"}, {"inject", id, "2.1"}} {
		out := c.run(args...)
		if !strings.Contains(out, heredoc) {
			t.Errorf("%s prints no heredoc as it was run:\n%s", strings.Join(args, " "), out)
		}
		if strings.Contains(out, `{"command"`) {
			t.Errorf("%s prints a tool input as JSON:\n%s", strings.Join(args, " "), out)
		}
	}
	if out := c.run("show", id, "1"); !strings.Contains(out, grep) {
		t.Errorf("show %s 1 prints no quoted grep as it was run:\n%s", id, out)
	}
	if out := c.run("show", id, "2", "--json"); !strings.Contains(out, `cat \u003e\u003e parts.txt \u003c\u003c'EOF'\\npart 4`) && !strings.Contains(out, `cat >> parts.txt <<'EOF'\\npart 4`) {
		t.Errorf("show --json does not keep the input's JSON:\n%s", out)
	}
}
