package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestThinkingReferenceRuns pins that the reference standing for a thinking
// block left out is a command that prints it.
func TestThinkingReferenceRuns(t *testing.T) {
	c := newCLI(t)
	out := c.run("compress-before", tools, "2", "--fidelity", "partial", "--format", "markdown")
	ref := regexp.MustCompile(`\[thinking · \d+ chars — (cairn [^\]]+)\]`).FindStringSubmatch(out)
	if ref == nil {
		t.Fatalf("no thinking reference naming a cairn command in:\n%s", out)
	}
	args := strings.Fields(ref[1])[1:]
	chars := regexp.MustCompile(`\[thinking · (\d+) chars`).FindStringSubmatch(ref[0])[1]
	if got := c.run(args...); !strings.Contains(got, "<summary>thinking · "+chars+" chars</summary>") {
		t.Fatalf("%s does not print the thinking of %s chars:\n%s", ref[1], chars, got)
	}
}
