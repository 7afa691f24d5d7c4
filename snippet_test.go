package cairn_test

import (
	"strings"
	"testing"

	"cairn"
)

func TestSnippet(t *testing.T) {
	mark := func(s string) string {
		return strings.NewReplacer("[", cairn.HighlightStart, "]", cairn.HighlightEnd).Replace(s)
	}
	for _, c := range []struct {
		text  string
		words []string
		width int
		want  string
	}{
		{"Set up the authentication module.", []string{"authentication"}, 16, "Set up the [authentication] module"},
		{"one two three four five six seven eight nine ten", []string{"eight"}, 4, "…seven [eight] nine ten"},
		{"one two three four five six", []string{"TWO"}, 3, "one [two] three…"},
		{"Benchmarks: benchmark_test.go", []string{"bench*"}, 8, "[Benchmarks]: [benchmark_test].go"},
		{"no match here at all", []string{"zebra"}, 3, "no match here…"},
		{"  ", []string{"x"}, 3, ""},
		{"日本語 の テキスト", []string{"テキスト"}, 8, "日本語 の [テキスト]"},
	} {
		if got := cairn.Snippet(c.text, c.words, c.width); got != mark(c.want) {
			t.Errorf("Snippet(%q, %v) = %q, want %q", c.text, c.words, got, mark(c.want))
		}
	}
}
