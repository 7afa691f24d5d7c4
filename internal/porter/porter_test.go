package porter

import "testing"

// TestStem: words of each of Porter's steps, stemmed as FTS5 stems them
// (read from SQLite's porter tokenizer; cairn/sqlite's TestPorterStem
// and FuzzPorterStem compare every word against it).
func TestStem(t *testing.T) {
	for word, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "agreed": "agre", "plastered": "plaster",
		"motoring": "motor", "hopping": "hop", "filing": "file", "happy": "happi",
		"relational": "relat", "generalization": "gener", "handling": "handl", "errors": "error",
		"authentication": "authent", "sky": "sky", "feed": "feed", "controll": "control",
		"ab": "ab", "": "",
	} {
		if got := Stem(word); got != want {
			t.Errorf("Stem(%q) = %q, want %q", word, got, want)
		}
	}
}
