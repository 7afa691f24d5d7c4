package cairn_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// previewJoined is PreviewText as it was: every field of s joined, then
// cut.
func previewJoined(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// FuzzPreviewText: PreviewText, which reads s only as far as the preview
// needs, gives what joining every field of s and cutting it gave, for
// any text and length.
func FuzzPreviewText(f *testing.F) {
	for _, s := range []string{"", " ", "a", "  two  words \n", "tab\tand\u00a0nbsp\u2003em", "caf\xc3", "\xff\xfe  x", strings.Repeat("word ", 50)} {
		for _, n := range []int{0, 1, 3, 10, 200} {
			f.Add(s, n)
		}
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1000 {
			return
		}
		if got, want := cairn.PreviewText(s, n), previewJoined(s, n); got != want {
			t.Fatalf("PreviewText(%q, %d) = %q, want %q", s, n, got, want)
		}
	})
}
