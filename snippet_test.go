package cairn_test

import (
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
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

// TestSearchText_Same checks SearchText against the rune by rune rules it
// stands for, on ASCII, mixed and invalid UTF-8 text.
func TestSearchText_Same(t *testing.T) {
	slow := func(text string) string {
		var b strings.Builder
		cjk := false
		for _, r := range text {
			switch r {
			case '.', '/', '\\', ':', '@', '\ufe0f', '\u200d':
				r = ' '
			}
			switch {
			case cairn.IsEmoji(r):
				b.WriteString(" " + cairn.EmojiWord(r) + " ")
				cjk = false
			case cairn.IsCJK(r):
				b.WriteString(" " + string(r))
				cjk = true
			default:
				if cjk {
					b.WriteByte(' ')
					cjk = false
				}
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	for _, in := range []string{"", "plain", "a.b/c\\d:e@f", "日本.go/x", "x日本y", "🚀launch.", "bad \xff byte.", "\xe6\x97", "tab\tnew\nline", "👍\ufe0fok\u200dz"} {
		if got, want := cairn.SearchText(in), slow(in); got != want {
			t.Errorf("SearchText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSearchText_ASCII checks that plain ASCII text, what most blocks
// hold, is returned as it is, without a copy: the search index of a
// message of a million blocks is filled through SearchText.
func TestSearchText_ASCII(t *testing.T) {
	text := strings.Repeat("block 12 word ", 20)
	if allocs := testing.AllocsPerRun(100, func() { _ = cairn.SearchText(text) }); allocs != 0 {
		t.Errorf("SearchText of plain ASCII made %v allocations, want 0", allocs)
	}
	if got := cairn.SearchText("see CLAUDE.md"); got != "see CLAUDE md" {
		t.Errorf("SearchText = %q", got)
	}
}

// TestSearchTextRewrites: SearchText changes more of a text than its path
// punctuation when SearchTextRewrites says so, and only then.
func TestSearchTextRewrites(t *testing.T) {
	for text, want := range map[string]bool{
		"":                                 false,
		"see CLAUDE.md at user@host:22":    false,
		"naïve café — done → next":         false,
		"done ✓ or ✗":                      true, // a dingbat is an emoji to search
		"ファイル":                             true,
		"ok 🙂":                             true,
		"heart ❤\ufe0f":                    true,
		"a\u200db":                         true,
		"\xff broken \xc3":                 true, // SearchText writes U+FFFD
		strings.Repeat("word ", 100) + "漢": true,
	} {
		if got := cairn.SearchTextRewrites(text); got != want {
			t.Errorf("SearchTextRewrites(%q) = %v, want %v", text, got, want)
		}
		plain := strings.NewReplacer(".", " ", "/", " ", "\\", " ", ":", " ", "@", " ").Replace(text)
		if rewritten := cairn.SearchText(text) != plain; rewritten != want {
			t.Errorf("SearchText(%q) = %q: rewritten beyond its punctuation %v, want %v", text, cairn.SearchText(text), rewritten, want)
		}
	}
}

// BenchmarkSearchTextRewrites reads a real session's lines.
func BenchmarkSearchTextRewrites(b *testing.B) {
	raw, err := os.ReadFile("../shared/testdata/transcripts/marot__spotter/long/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	if err != nil {
		b.Skip(err)
	}
	lines := strings.Split(string(raw), "\n")
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		for _, l := range lines {
			cairn.SearchTextRewrites(l)
		}
	}
}
