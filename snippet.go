package cairn

import (
	"strings"
	"unicode"
)

// Snippet returns a short excerpt of text around the first of words found
// in it, each occurrence wrapped in [HighlightStart] and [HighlightEnd]: how
// a search hit is shown, whichever store found it. A word ending in '*'
// matches any word it begins. Matching ignores case; text without a match
// gives its first words. About width words are kept.
func Snippet(text string, words []string, width int) string {
	type token struct{ start, end int }
	var tokens []token
	start := -1
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_'
		if word && start < 0 {
			start = i
		} else if !word && start >= 0 {
			tokens = append(tokens, token{start, i})
			start = -1
		}
	}
	if start >= 0 {
		tokens = append(tokens, token{start, len(text)})
	}
	matches := func(tok string) bool {
		for _, w := range words {
			if prefix, ok := strings.CutSuffix(w, "*"); ok {
				if len(tok) >= len(prefix) && strings.EqualFold(tok[:len(prefix)], prefix) {
					return true
				}
			} else if strings.EqualFold(tok, w) {
				return true
			}
		}
		return false
	}
	first := -1
	for i, t := range tokens {
		if matches(text[t.start:t.end]) {
			first = i
			break
		}
	}
	if len(tokens) == 0 {
		return ""
	}
	from := max(0, first-width/3)
	to := min(len(tokens), from+width)
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	pos := tokens[from].start
	for _, t := range tokens[from:to] {
		b.WriteString(text[pos:t.start])
		if tok := text[t.start:t.end]; matches(tok) {
			b.WriteString(HighlightStart + tok + HighlightEnd)
		} else {
			b.WriteString(tok)
		}
		pos = t.end
	}
	if to < len(tokens) {
		b.WriteString("…")
	}
	return b.String()
}
