package loop

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/workspace"
)

// TestSessionChangeBounded: the line a session's end writes names a few of
// each list and counts the rest, and stays within changeLineLen however
// much changed, since every SessionStart gives the board.
func TestSessionChangeBounded(t *testing.T) {
	var c Change
	if s := c.String(); s != "" {
		t.Errorf("nothing changed, got %q", s)
	}
	long := strings.Repeat("word ", 40)
	for i := range 20 {
		c.Decisions = append(c.Decisions, fmt.Sprintf("ADR-%03d %s", i+1, long))
		c.TodosAdded = append(c.TodosAdded, fmt.Sprintf("TODO-%03d %s", i+1, long))
		c.Files = append(c.Files, fmt.Sprintf("src/file%02d.go", i))
	}
	s := c.String()
	if n := utf8.RuneCountInString(s); n > changeLineLen {
		t.Errorf("%d runes, want at most %d: %s", n, changeLineLen, s)
	}
	if !strings.Contains(s, "decided ADR-001 word") || !strings.Contains(s, "(+17 more)") {
		t.Errorf("the line does not name the first and count the rest: %s", s)
	}
	c = Change{SessionChanges: workspace.SessionChanges{TodosDone: []string{"TODO-001 Ship"}}, Popped: []string{"a Frame A"}}
	if got, want := c.String(), "finished TODO-001 Ship; popped a Frame A"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
