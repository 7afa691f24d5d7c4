package redact

import (
	"strings"
	"unicode"
)

// Found reports whether each of words (a search's words, lower case, a
// trailing '*' for a prefix) still shows in text once its secrets are
// replaced, as a word or the start of one: a block a search found only
// through a secret is then no hit, wherever the secret lies in the block,
// not only in the snippet shown. A word no secret holds is taken as found:
// the search matched it, and redaction did not change it.
func (r *Redactor) Found(text string, words []string) bool {
	found := r.Find(text)
	if len(found) == 0 {
		return true
	}
	var inSecret []string
	for _, w := range words {
		w = strings.ToLower(strings.TrimSuffix(w, "*"))
		for _, f := range found {
			if w != "" && strings.Contains(strings.ToLower(f.Secret), w) {
				inSecret = append(inSecret, w)
				break
			}
		}
	}
	if len(inSecret) == 0 {
		return true
	}
	redacted := strings.ToLower(apply(text, plan(text, found, false)))
	tokens := strings.FieldsFunc(redacted, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
	for _, w := range inSecret {
		shown := false
		for _, t := range tokens {
			if strings.HasPrefix(t, w) {
				shown = true
				break
			}
		}
		if !shown {
			return false
		}
	}
	return true
}
