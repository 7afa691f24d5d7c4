package main

import (
	"strings"
	"testing"
)

// TestSearchRoughEdges pins what a person typing a search expects: a word
// starting with '-' is searched, not read as a flag; a word that only
// begins words in the store suggests its prefix query.
func TestSearchRoughEdges(t *testing.T) {
	c := newCLI(t)
	if out := c.run("search", "-migration"); !strings.Contains(out, tools+"  round 002") {
		t.Errorf("search -migration:\n%s", out)
	}
	if out := c.run("search", "-n", "1", "-migration"); strings.Count(out, "  round ") != 1 {
		t.Errorf("search -n 1 -migration:\n%s", out)
	}
	if out, err := c.try("search", "--sesion", "x", "migration"); err == nil || !strings.Contains(out, "not defined: -sesion") {
		t.Errorf("a mistyped --flag is no query word: %v\n%s", err, out)
	}
	out := c.run("search", "migr")
	if !strings.Contains(out, `No round matches "migr".`) || !strings.Contains(out, "Words that begin so do match: cairn search 'migr*'") {
		t.Errorf("search migr:\n%s", out)
	}
	if out := c.run("search", "--json", "migr"); !strings.Contains(out, `"suggest":"migr*"`) {
		t.Errorf("search --json migr:\n%s", out)
	}
	if out := c.run("search", "zyzzyva"); strings.Contains(out, "begin so") {
		t.Errorf("a suggestion that finds nothing:\n%s", out)
	}
}
