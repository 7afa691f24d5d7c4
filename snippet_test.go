package cairn_test

import (
	"strings"
	"testing"

	"cairn"
)

func TestSearchText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain words stay", "plain words stay"},
		{"CLAUDE.mdを最新に", "CLAUDE md を 最 新 に"},
		{"src/auth/jwt.go me@x.io", "src auth jwt go me x io"},
		{"한국어 text", " 한 국 어  text"},
	} {
		if got := cairn.SearchText(c.in); got != c.want {
			t.Errorf("SearchText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

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
		{"x+y=z; A_b9 (c)!`{Q}~@^", []string{"a_b9", "q"}, 8, "…y=z; [A_b9] (c)!`{[Q]"},
		{"naïve Ünïcode, ÉCOLE", []string{"école"}, 8, "naïve Ünïcode, [ÉCOLE]"},
		{"  ", []string{"x"}, 3, ""},
		{"日本語 の テキスト", []string{"テキスト"}, 16, "日本語 の [テキスト]"},
		{"CLAUDE.mdファイルを最新の状態にアップデートしました", []string{"最新の状態"}, 40, "CLAUDE.mdファイルを[最新の状態]にアップデートしました"},
		{"を最新にして、最新を保つ", []string{"最新"}, 3, "を[最新]…"},
	} {
		if got := cairn.Snippet(c.text, c.words, c.width); got != mark(c.want) {
			t.Errorf("Snippet(%q, %v) = %q, want %q", c.text, c.words, got, mark(c.want))
		}
	}
}

// BenchmarkSnippet cuts the snippet of a 16 KB answer whose only match is
// near its end, as a search does for each of its twenty hits.
func BenchmarkSnippet(b *testing.B) {
	text := strings.Repeat("The migration adds two tables, sessions_v2 and rounds_v2; run `go test ./...` first. ", 190) + "Then the needle."
	for b.Loop() {
		if s := cairn.Snippet(text, []string{"needle"}, 24); !strings.Contains(s, cairn.HighlightStart+"needle") {
			b.Fatal(s)
		}
	}
}
