// Package porter stems words as SQLite's FTS5 porter tokenizer does, for
// a search to know the index's term for a word without asking SQLite
// (cairn/sqlite's terms.go, bench/cmd/searchfloor). cairn/sqlite's
// TestPorterStem and FuzzPorterStem hold it to FTS5's own stemming.
package porter

// Stem returns the term FTS5's porter tokenizer makes of token, a token
// of unicode61 (folded to lower case), as SQLite's fts5_tokenize.c stems
// it: Porter's algorithm with that file's rule tables, a token shorter
// than 3 bytes or longer than 64 left as it is.
func Stem(token string) string {
	// Every rule removes or rewrites a suffix ending in a letter: a token
	// ending in anything else (a number) is left as it is.
	if len(token) < 3 || len(token) > 64 || token[len(token)-1] < 'a' || token[len(token)-1] > 'z' {
		return token
	}
	// The word is stemmed in a buffer on the stack (rules lengthen it by
	// one byte at most): a word left as it is costs no allocation.
	var buf [72]byte
	w := append(buf[:0], token...)
	w = step1a(w)
	// Of step 1b's rules, only removing ed or ing goes on to 1b2.
	eed := string(w[len(w)-min(3, len(w)):]) == "eed"
	if w2, ok := applyFirst(w, step1b); ok && eed {
		w = w2
	} else if ok {
		w = w2
		if w2, ok := applyFirst(w, step1b2); ok {
			w = w2
		} else if c := w[len(w)-1]; !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && len(w) > 1 && c == w[len(w)-2] {
			w = w[:len(w)-1]
		} else if measureIs1(w) && endsCVC(w) {
			w = append(w, 'e')
		}
	}
	if w[len(w)-1] == 'y' && hasVowel(w[:len(w)-1]) {
		w[len(w)-1] = 'i'
	}
	w, _ = applyFirst(w, step2)
	w, _ = applyFirst(w, step3)
	w, _ = applyFirst(w, step4)
	if n := len(w) - 1; w[n] == 'e' && (measureOver1(w[:n]) || measureIs1(w[:n]) && !endsCVC(w[:n])) {
		w = w[:n]
	}
	if n := len(w); n > 1 && w[n-1] == 'l' && w[n-2] == 'l' && measureOver1(w[:n-1]) {
		w = w[:n-1]
	}
	if string(w) == token {
		return token
	}
	return string(w)
}

// A porterRule replaces suffix by with when the stem before it meets
// cond.
type porterRule struct {
	suffix, with string
	cond         condition
}

// A condition is what a rule asks of the stem before its suffix. The
// conditions are named, not functions: a call through a function value
// would move the stemming buffer to the heap.
type condition int

const (
	always      condition = iota
	mOver0                // m > 0
	mOver1                // m > 1
	mOver1ST              // m > 1 and the stem ends in s or t
	vowelInStem           // *v*
)

// holds reports whether stem meets c.
func (c condition) holds(stem []byte) bool {
	switch c {
	case mOver0:
		return measureOver0(stem)
	case mOver1:
		return measureOver1(stem)
	case mOver1ST:
		last := stem[len(stem)-1]
		return (last == 's' || last == 't') && measureOver1(stem)
	case vowelInStem:
		return hasVowel(stem)
	}
	return true
}

// applyFirst applies the first rule of rules whose suffix w ends with
// (the suffix shorter than w), if its condition holds, and reports
// whether it did. Only that first rule is tried, as fts5_tokenize.c
// tries them.
func applyFirst(w []byte, rules []porterRule) ([]byte, bool) {
	for _, r := range rules {
		if len(w) <= len(r.suffix) || string(w[len(w)-len(r.suffix):]) != r.suffix {
			continue
		}
		stem := w[:len(w)-len(r.suffix)]
		if !r.cond.holds(stem) {
			return w, false
		}
		return append(stem, r.with...), true
	}
	return w, false
}

// step1a strips a plural's s: sses → ss, ies → i, s → (none) unless ss.
func step1a(w []byte) []byte {
	n := len(w)
	switch {
	case w[n-1] != 's':
		return w
	case w[n-2] == 'e' && (n > 4 && w[n-4] == 's' && w[n-3] == 's' || n > 3 && w[n-3] == 'i'):
		return w[:n-2]
	case w[n-2] == 'e' || w[n-2] != 's':
		return w[:n-1]
	}
	return w
}

var (
	step1b = []porterRule{
		{"eed", "ee", mOver0},
		{"ed", "", vowelInStem},
		{"ing", "", vowelInStem},
	}
	step1b2 = []porterRule{
		{"at", "ate", always},
		{"bl", "ble", always},
		{"iz", "ize", always},
	}
	step2 = []porterRule{
		{"ational", "ate", mOver0},
		{"tional", "tion", mOver0},
		{"enci", "ence", mOver0},
		{"anci", "ance", mOver0},
		{"izer", "ize", mOver0},
		{"logi", "log", mOver0},
		{"bli", "ble", mOver0},
		{"alli", "al", mOver0},
		{"entli", "ent", mOver0},
		{"eli", "e", mOver0},
		{"ousli", "ous", mOver0},
		{"ization", "ize", mOver0},
		{"ation", "ate", mOver0},
		{"ator", "ate", mOver0},
		{"alism", "al", mOver0},
		{"iveness", "ive", mOver0},
		{"fulness", "ful", mOver0},
		{"ousness", "ous", mOver0},
		{"aliti", "al", mOver0},
		{"iviti", "ive", mOver0},
		{"biliti", "ble", mOver0},
	}
	step3 = []porterRule{
		{"ical", "ic", mOver0},
		{"ness", "", mOver0},
		{"icate", "ic", mOver0},
		{"iciti", "ic", mOver0},
		{"ful", "", mOver0},
		{"ative", "", mOver0},
		{"alize", "al", mOver0},
	}
	step4 = []porterRule{
		{"al", "", mOver1},
		{"ance", "", mOver1},
		{"ence", "", mOver1},
		{"er", "", mOver1},
		{"ic", "", mOver1},
		{"able", "", mOver1},
		{"ible", "", mOver1},
		{"ant", "", mOver1},
		{"ement", "", mOver1},
		{"ment", "", mOver1},
		{"ent", "", mOver1},
		{"ion", "", mOver1ST},
		{"ou", "", mOver1},
		{"ism", "", mOver1},
		{"ate", "", mOver1},
		{"iti", "", mOver1},
		{"ous", "", mOver1},
		{"ive", "", mOver1},
		{"ize", "", mOver1},
	}
)

// isVowel reports whether c is a vowel: a, e, i, o, u, and y after a
// consonant (prevConsonant).
func isVowel(c byte, prevConsonant bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || prevConsonant && c == 'y'
}

// gobbleVC returns the length of the first vowels-then-consonants
// sequence of w (from a consonant's state prevConsonant), 0 if w has
// none: how Porter's measure m is counted.
func gobbleVC(w []byte, prevConsonant bool) int {
	consonant := prevConsonant
	i := 0
	for ; i < len(w); i++ {
		if consonant = !isVowel(w[i], consonant); !consonant {
			break
		}
	}
	for i++; i < len(w); i++ {
		if consonant = !isVowel(w[i], consonant); consonant {
			return i + 1
		}
	}
	return 0
}

// measureOver0 is Porter's condition m > 0.
func measureOver0(stem []byte) bool { return gobbleVC(stem, false) > 0 }

// measureOver1 is Porter's condition m > 1.
func measureOver1(stem []byte) bool {
	n := gobbleVC(stem, false)
	return n > 0 && gobbleVC(stem[n:], true) > 0
}

// measureIs1 is Porter's condition m = 1.
func measureIs1(stem []byte) bool {
	n := gobbleVC(stem, false)
	return n > 0 && gobbleVC(stem[n:], true) == 0
}

// endsCVC is Porter's condition *o: stem ends consonant, vowel,
// consonant, the last not w, x or y.
func endsCVC(stem []byte) bool {
	switch stem[len(stem)-1] {
	case 'w', 'x', 'y':
		return false
	}
	mask, consonant := 0, false
	for _, c := range stem {
		consonant = !isVowel(c, consonant)
		mask <<= 1
		if consonant {
			mask |= 1
		}
	}
	return mask&7 == 5
}

// hasVowel is Porter's condition *v*: stem holds a vowel.
func hasVowel(stem []byte) bool {
	for i, c := range stem {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}
