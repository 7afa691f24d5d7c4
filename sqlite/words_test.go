package sqlite

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// indexTokens returns the distinct tokens the index tokenizer (unicode61,
// unstemmed: stemming maps equal sets to equal sets) reads in t, sorted,
// all read by FTS5 (not wordTokens' reading of ASCII, which rests on the
// rule distinctWords does).
func indexTokens(tb testing.TB, t string) []string {
	tb.Helper()
	tokens, err := scratchTokens(context.Background(), t)
	if err != nil {
		tb.Fatal(err)
	}
	slices.Sort(tokens)
	return slices.Compact(tokens)
}

var wordsSeeds = []string{
	"",
	"the the THE The tHe",
	"x session x id: session_id, Session-ID",
	"func main() { fmt.Println(\"hello, world\") } // main.go:12",
	"naïve café NAÏVE Café naive cafe",
	"ファイル を 確認します ファイル",
	"tabs\tand\nnewlines\r\nand\x00nul and\x7fdel",
	"émigré—émigré–émigré…émigré",
	"\xff\xfe broken \xc3 utf8 \xc3",
	"ǅungla Ǆ ǆ İstanbul istanbul",
	"🙂 emoji🙂emoji 🙂",
	"src/auth/jwt.go user@example.com:22 C:\\work\\main.go → done ✓ — CLAUDE.md",
	"family 👨\u200d👩\u200d👧 ❤\ufe0f 漢字.md",
}

// TestDistinctWords: the index reads the same tokens in a text cut to
// its distinct words as in the text, and each ASCII word once.
func TestDistinctWords(t *testing.T) {
	for _, s := range wordsSeeds {
		d := distinctWords(s)
		if got, want := indexTokens(t, d), indexTokens(t, s); !slices.Equal(got, want) {
			t.Errorf("%q: distinctWords %q holds tokens %q, want %q", s, d, got, want)
		}
	}
	var many strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&many, "w%d W%d ", i, i%97)
	}
	if got := strings.Count(distinctWords(many.String()), " ") + 1; got != 5000 {
		t.Errorf("5,000 distinct words of 10,000 (the set grows): %d kept", got)
	}
	if got, want := distinctWords("Error handling: error HANDLING, handling errors."), "error handling errors"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzDistinctWords(f *testing.F) {
	for _, s := range wordsSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := distinctWords(s)
		if len(d) > len(s) {
			t.Fatalf("%q: distinctWords %q is longer", s, d)
		}
		if got, want := indexTokens(t, d), indexTokens(t, s); !slices.Equal(got, want) {
			t.Fatalf("%q: distinctWords %q holds tokens %q, want %q", s, d, got, want)
		}
		// indexText leaves out SearchText for a text it does not rewrite.
		if !cairn.SearchTextRewrites(s) && distinctWords(cairn.SearchText(s)) != d {
			t.Fatalf("%q: distinctWords of its SearchText %q, of itself %q", s, distinctWords(cairn.SearchText(s)), d)
		}
	})
}

// BenchmarkDistinctWords cuts the texts of a real session's blocks.
func BenchmarkDistinctWords(b *testing.B) {
	raw, err := os.ReadFile("../../shared/testdata/transcripts/marot__spotter/long/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	if err != nil {
		b.Skip(err)
	}
	texts := strings.Split(string(raw), "\n") // a line's size is a block's, near enough
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for b.Loop() {
		for _, t := range texts {
			distinctWords(t)
		}
	}
}
