package sqlite

import "strings"

// The search index keeps which blocks hold a word, not how often
// (migration 0014), so a block's index text need hold each of its words
// only once: FTS5 tokenizes, stems and hashes every word it is given,
// inside the single write transaction, and a tool's output or a file read
// says the same words many times over. distinctWords cuts a block's text
// down to its distinct pieces before it reaches the index, on the
// importer's own goroutine.

// indexWords is distinctWords; a test that builds an index with
// positions, as older stores have, gives it the whole text.
var indexWords = distinctWords

// distinctWords returns the pieces of t, an index text, that the index
// tokenizer (unicode61) reads as distinct, each once, in the order first
// seen and separated by a space. A piece is a run of bytes between ASCII
// separators: ASCII letters and digits are token characters to unicode61
// and every other ASCII byte a separator, so each piece is tokenized on
// its own as it was within t. A piece of ASCII is folded to lower case,
// as the tokenizer folds it; one holding other characters is kept whole
// (the tokenizer may split it further) and only a byte-equal piece is
// left out. The index then holds exactly the tokens it held for t; only
// the block's length in the index becomes its count of distinct pieces.
func distinctWords(t string) string {
	seen := make(map[string]struct{}, len(t)/16+1)
	var b strings.Builder
	b.Grow(len(t) / 2)
	var low []byte
	for i := 0; i < len(t); {
		for i < len(t) && separator(t[i]) {
			i++
		}
		start, upper := i, false
		for i < len(t) && !separator(t[i]) {
			upper = upper || 'A' <= t[i] && t[i] <= 'Z'
			i++
		}
		if start == i {
			break
		}
		w := t[start:i]
		if upper {
			low = append(low[:0], w...)
			for j, c := range low {
				if 'A' <= c && c <= 'Z' {
					low[j] = c + 'a' - 'A'
				}
			}
			if _, ok := seen[string(low)]; ok {
				continue
			}
			w = string(low)
		} else if _, ok := seen[w]; ok {
			continue
		}
		seen[w] = struct{}{}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// separator reports whether unicode61, as the index configures it, reads
// byte c as a separator: any ASCII byte but a letter or a digit. Bytes of
// other characters are not separators here; the tokenizer decides.
func separator(c byte) bool {
	return c < 0x80 && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
}
