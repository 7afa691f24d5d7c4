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

// TestSurgicalSessionsApart pins that the sessions cairn's own surgery cut
// neither crowd the session list nor repeat search hits unless asked, and
// that the two token figures say what they count.
func TestSurgicalSessionsApart(t *testing.T) {
	c := newCLI(t)
	before := c.run("search", "migration")
	c.run("compress-before", tools, "3", "--cwd", t.TempDir())
	out := c.run("sessions")
	if strings.Count(out, "5f0c2a1e-") != 4 || !strings.Contains(out, "(1 cut by surgery not listed: --surgical lists them)") {
		t.Errorf("sessions:\n%s", out)
	}
	if !strings.Contains(out, "API TOKENS") {
		t.Errorf("sessions does not say its tokens are API usage:\n%s", out)
	}
	if out := c.run("sessions", "--surgical"); strings.Count(out, "\n") != 6 || strings.Contains(out, "not listed") {
		t.Errorf("sessions --surgical:\n%s", out)
	}
	// The same rounds are found (which block's snippet stands for a round
	// may differ between equally ranked blocks).
	if after := c.run("search", "migration"); hitRounds(after) != hitRounds(before) {
		t.Errorf("search after a surgical export:\n%s\nbefore:\n%s", after, before)
	}
	if out := c.run("search", "--surgical", "migration"); out == before {
		t.Errorf("search --surgical finds no more than before:\n%s", out)
	}
	if out := c.run("advise", tools); !strings.Contains(out, "context window: ~") {
		t.Errorf("advise does not say its tokens are the context window:\n%s", out)
	}
}

// hitRounds returns the session and round of each hit of search's output.
func hitRounds(out string) string {
	var rounds []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) >= 3 && f[1] == "round" {
			rounds = append(rounds, f[0]+" "+f[2])
		}
	}
	return strings.Join(rounds, "\n")
}
