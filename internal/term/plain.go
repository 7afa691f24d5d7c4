package term

import (
	"regexp"
	"strconv"
	"strings"
)

// Rows and Cols are the size of the terminal a [Term] runs in.
const Rows, Cols = 50, 160

var (
	cursorRight = regexp.MustCompile(`\x1b\[(\d*)C`)
	cursorCol   = regexp.MustCompile(`\x1b\[\d*G`)
	cursorMove  = regexp.MustCompile(`\x1b\[[\d;]*[ABHf]`)
	escapes     = regexp.MustCompile(`\x1b\[[0-9;?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P^_][^\x1b]*\x1b\\|\x1b[()*+][0-9A-Za-z]|\x1b[=>78DEHMc]`)
)

// Plain strips terminal escapes from what a terminal program wrote: a
// cursor move right becomes the spaces it skips, a jump to a column one
// space (programs draw words so), a move up or down or to a row a new
// line; carriage returns go. What it returns is the order things were
// drawn in, not the screen's layout: assert on phrases, not on lines.
func Plain(s string) string {
	s = cursorRight.ReplaceAllStringFunc(s, func(m string) string {
		n, err := strconv.Atoi(m[2 : len(m)-1])
		if err != nil || n < 1 {
			n = 1
		}
		return strings.Repeat(" ", min(n, Cols))
	})
	s = cursorCol.ReplaceAllString(s, " ")
	s = cursorMove.ReplaceAllString(s, "\n")
	s = escapes.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, "\r", "")
}

// InOrder returns the first of want that s does not hold after the ones
// before it, "" when s holds them all in that order: what a person reads
// on a screen, prompt then answer, or what a request carries.
func InOrder(s string, want ...string) string {
	for _, w := range want {
		i := strings.Index(s, w)
		if i < 0 {
			return w
		}
		s = s[i+len(w):]
	}
	return ""
}
