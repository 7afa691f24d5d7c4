package assemble

import (
	"strings"
	"testing"
)

// TestOneLine: a line longer than n runes keeps n-1 of them and "…"; only
// the first line counts; multi-byte runes are never split.
func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"  abc  ", 3, "abc"},
		{"ab\ncd", 3, "ab…"},
		{"abcd\nef", 3, "ab…"},
		{"ééé", 3, "ééé"},
		{"éééé", 3, "éé…"},
		{"日本語の文", 4, "日本語…"},
		{"x", 1, "x"},
		{"xy", 1, "…"},
		{"", 5, ""},
		{strings.Repeat("é", 1<<20), 80, strings.Repeat("é", 79) + "…"},
	} {
		if got := oneLine(c.s, c.n); got != c.want {
			t.Errorf("oneLine(%.20q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// TestCutText: the first n characters and how many more there were.
func TestCutText(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc… (1 more characters)"},
		{"日本語の文", 2, "日本… (3 more characters)"},
		{"", 2, ""},
	} {
		if got := cutText(c.s, c.n); got != c.want {
			t.Errorf("cutText(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
