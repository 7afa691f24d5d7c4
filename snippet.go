package cairn

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsCJK reports whether r is written without spaces between words (Han,
// Hiragana, Katakana, Hangul): search indexes each such character as a
// word of its own, so that any run of them can be found.
func IsCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// IsEmoji reports whether r is a pictograph (emoji, dingbat, pictographic
// symbol): no tokenizer reads one as a letter, so search writes each as a
// word of its own, [EmojiWord].
func IsEmoji(r rune) bool {
	return unicode.Is(unicode.So, r) && (r >= 0x1F000 || r >= 0x2600 && r <= 0x27BF || r >= 0x2B00 && r <= 0x2BFF)
}

// EmojiWord is the word the search index holds for the pictograph r, made
// of letters and digits every store's tokenizer keeps: "emoji1f680" for 🚀.
func EmojiWord(r rune) string { return fmt.Sprintf("emoji%x", r) }

// emojiMark reports whether r is an emoji's presentation selector or a
// joiner between emoji: not part of a word, SearchText writes a space.
func emojiMark(r rune) bool { return r == '\ufe0f' || r == '\u200d' }

// isGlyph reports whether r is searched as a word of its own.
func isGlyph(r rune) bool { return IsCJK(r) || IsEmoji(r) }

// SearchText returns text as the search index reads it: every CJK
// character set apart by spaces, every emoji written as its [EmojiWord],
// and the punctuation inside paths, hosts and addresses ('.', '/', '\\',
// ':', '@') turned into spaces, so that every store splits CLAUDE.md or
// src/auth/jwt.go into words alike. Queries go through it too, so a run of
// CJK characters or emoji is searched as a phrase.
func SearchText(text string) string {
	if s, ok := searchASCII(text); ok {
		return s
	}
	var b strings.Builder
	cjk := false
	for _, r := range text {
		if r < utf8.RuneSelf {
			if cjk {
				b.WriteByte(' ')
				cjk = false
			}
			b.WriteByte(asciiSearchByte(byte(r)))
			continue
		}
		if emojiMark(r) {
			r = ' '
		}
		if IsEmoji(r) {
			b.WriteString(" " + EmojiWord(r) + " ")
			cjk = false
			continue
		}
		if IsCJK(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			cjk = true
			continue
		}
		if cjk {
			b.WriteByte(' ')
			cjk = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// SearchTextRewrites reports whether [SearchText] changes more of text
// than the ASCII punctuation of paths and addresses it turns into spaces:
// whether text holds a CJK character, an emoji, an emoji's joiner or
// presentation selector, or a byte that is not UTF-8 (written as U+FFFD).
// An index whose tokenizer splits words at that punctuation anyway reads
// a text it does not rewrite as it reads its SearchText.
func SearchTextRewrites(text string) bool {
	for i := 0; i < len(text); {
		// Eight ASCII bytes at a time: most of a transcript.
		if i+8 <= len(text) && (uint64(text[i])|uint64(text[i+1])<<8|uint64(text[i+2])<<16|uint64(text[i+3])<<24|
			uint64(text[i+4])<<32|uint64(text[i+5])<<40|uint64(text[i+6])<<48|uint64(text[i+7])<<56)&0x8080808080808080 == 0 {
			i += 8
			continue
		}
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n == 1 || emojiMark(r) || isGlyph(r) {
			return true
		}
		i += n
	}
	return false
}

// searchASCII returns SearchText of a text all ASCII, the most common,
// without decoding runes, and the text itself when it holds no path
// punctuation: the search index of a million blocks is filled through it.
// ok is false if text is not all ASCII.
func searchASCII(text string) (_ string, ok bool) {
	var out []byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= utf8.RuneSelf {
			return "", false
		}
		if s := asciiSearchByte(c); s != c {
			if out == nil {
				out = []byte(text)
			}
			out[i] = s
		}
	}
	if out == nil {
		return text, true
	}
	return string(out), true
}

// asciiSearchByte is the byte SearchText writes for the ASCII byte c.
func asciiSearchByte(c byte) byte {
	switch c {
	case '.', '/', '\\', ':', '@':
		return ' '
	}
	return c
}

// Snippet returns a short excerpt of text around the first of words found
// in it, each occurrence wrapped in [HighlightStart] and [HighlightEnd]: how
// a search hit is shown, whichever store found it. A word ending in '*'
// matches any word it begins; a word of CJK characters or emoji matches
// wherever they occur in a row. Matching ignores case; text without a match gives
// its first words. About width words (a CJK character counts as one) are
// kept.
func Snippet(text string, words []string, width int) string {
	type span struct{ start, end int }
	tokens := make([]span, 0, len(text)/6+1) // prose has a word every six bytes or so
	start := -1
	for i, r := range text {
		var word, glyph bool
		if r < utf8.RuneSelf { // most of a transcript: no table lookups
			word = 'a' <= r|0x20 && r|0x20 <= 'z' || '0' <= r && r <= '9' || r == '_'
		} else {
			word = (unicode.IsLetter(r) || unicode.IsNumber(r)) && !IsCJK(r)
			glyph = isGlyph(r)
		}
		if start >= 0 && !word {
			tokens = append(tokens, span{start, i})
			start = -1
		}
		if glyph {
			tokens = append(tokens, span{i, i + len(string(r))})
		} else if word && start < 0 {
			start = i
		}
	}
	if start >= 0 {
		tokens = append(tokens, span{start, len(text)})
	}
	if len(tokens) == 0 {
		return ""
	}
	var marks []span
	for _, w := range words {
		prefix, isPrefix := strings.CutSuffix(w, "*")
		if strings.IndexFunc(prefix, isGlyph) >= 0 {
			for i := 0; prefix != ""; {
				j := strings.Index(text[i:], prefix)
				if j < 0 {
					break
				}
				marks = append(marks, span{i + j, i + j + len(prefix)})
				i += j + len(prefix)
			}
			continue
		}
		for _, t := range tokens {
			tok := text[t.start:t.end]
			if isPrefix && len(tok) >= len(prefix) && strings.EqualFold(tok[:len(prefix)], prefix) ||
				!isPrefix && strings.EqualFold(tok, w) {
				marks = append(marks, t)
			}
		}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].start < marks[j].start })
	first := 0
	if len(marks) > 0 {
		for first < len(tokens) && tokens[first].end <= marks[0].start {
			first++
		}
	}
	from := max(0, first-width/3)
	if len(marks) == 0 {
		from = 0
	}
	to := min(len(tokens), from+width)
	lo, hi := tokens[from].start, tokens[to-1].end
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	pos := lo
	for _, m := range marks {
		if m.end <= pos || m.start >= hi {
			continue
		}
		s, e := max(m.start, pos), min(m.end, hi)
		b.WriteString(text[pos:s])
		b.WriteString(HighlightStart + text[s:e] + HighlightEnd)
		pos = e
	}
	b.WriteString(text[pos:hi])
	if to < len(tokens) {
		b.WriteString("…")
	}
	return b.String()
}
