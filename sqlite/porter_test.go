package sqlite

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/porter"
)

// stemsByFTS5 returns the terms FTS5's porter tokenizer makes of words,
// each a token of unicode61 (lower-case ASCII letters and digits), in
// order, from a scratch table that keeps positions.
func stemsByFTS5(tb testing.TB, words []string) []string {
	tb.Helper()
	db, err := scratchDB()
	if err != nil {
		tb.Fatal(err)
	}
	phraseDB.mu.Lock()
	defer phraseDB.mu.Unlock()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range []string{
		`CREATE VIRTUAL TABLE temp.stems USING fts5 (content, tokenize = '` + phraseTokenizer + `')`,
		`CREATE VIRTUAL TABLE temp.stems_v USING fts5vocab (temp, stems, 'instance')`,
	} {
		if _, err := tx.Exec(q); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := tx.Exec(`INSERT INTO temp.stems (rowid, content) VALUES (1, ?)`, strings.Join(words, " ")); err != nil {
		tb.Fatal(err)
	}
	rows, err := tx.Query(`SELECT term FROM temp.stems_v ORDER BY offset`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var terms []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			tb.Fatal(err)
		}
		terms = append(terms, t)
	}
	return terms
}

// TestPorterStem: porter.Stem makes of every ASCII word of the real
// transcripts in ../shared/testdata/transcripts, and of the words Porter's rules
// turn on, the term FTS5 makes.
func TestPorterStem(t *testing.T) {
	words := strings.Fields(`caresses ponies ties caress cats feed agreed plastered bled motoring sing
		conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky
		relational conditional rational valenci hesitanci digitizer conformabli radicalli differentli
		vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness
		callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti
		electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable
		defensible irritant replacement adjustment dependent adoption homologou communism activate
		angulariti homologous effective bowdlerize probate rate cease controll roll generalization
		oscillators eed ied ies sss ing ed y yy ays eying yyy agreement logi xylological handling
		errors tests migration authentication`)
	seen := map[string]bool{}
	for _, w := range words {
		seen[w] = true
	}
	err := filepath.WalkDir("../../shared/testdata/transcripts", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, w := range strings.Fields(distinctWords(string(raw))) {
			if !seen[w] && ascii(w) && len(w) <= 80 {
				seen[w] = true
				words = append(words, w)
			}
		}
		return nil
	})
	if err != nil {
		t.Logf("without the real transcripts: %v", err)
	}
	want := stemsByFTS5(t, words)
	if len(want) != len(words) {
		t.Fatalf("FTS5 read %d tokens in %d words", len(want), len(words))
	}
	bad := 0
	for i, w := range words {
		if got := porter.Stem(w); got != want[i] {
			if bad++; bad <= 20 {
				t.Errorf("porter.Stem(%q) = %q, FTS5 %q", w, got, want[i])
			}
		}
	}
	t.Logf("%d words, %d stemmed otherwise", len(words), bad)
}

// FuzzPorterStem: porter.Stem agrees with FTS5 on any word of lower-case
// ASCII letters and digits.
func FuzzPorterStem(f *testing.F) {
	for _, s := range []string{"caresses", "agreed", "hopping", "happy", "relational", "generalization", "yyy", "ied", "a1b2ing"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if c := s[i] | 0x20; 'a' <= c && c <= 'z' {
				b.WriteByte(c)
			} else if '0' <= s[i] && s[i] <= '9' {
				b.WriteByte(s[i])
			}
		}
		w := b.String()
		if w == "" {
			return
		}
		if got, want := porter.Stem(w), stemsByFTS5(t, []string{w}); len(want) != 1 || got != want[0] {
			t.Fatalf("porter.Stem(%q) = %q, FTS5 %q", w, got, want)
		}
	})
}
