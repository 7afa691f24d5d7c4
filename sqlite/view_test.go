package sqlite

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzUnquote: unquote gives what jsontext gives for every valid JSON
// string (of an invalid one it may give anything: a view is only kept
// when it reads back the text the transcript's reader gave, so such a
// text stays inline), and a view of a text's JSON string in a line reads
// the text back.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\t\"c\"\\d\/"`, `"\u001b[31mred\u001b[0m"`, `"\ud83d\ude00 smile"`, `"\ud800 lone"`,
		`"é ü 日本"`, `"\u00e9\u2028"`, `"bad \x escape"`, `"trailing \"`, `"\u12"`, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, q []byte) {
		if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
			return
		}
		want, werr := jsontext.AppendUnquote(nil, q)
		got, gerr := unquote(q)
		if werr == nil && (gerr != nil || got != string(want)) {
			t.Fatalf("unquote(%q) = %q, %v; jsontext: %q, %v", q, got, gerr, want, werr)
		}
		if !utf8.Valid(q) {
			return
		}
		text := string(want)
		if werr != nil || len(text) < viewMin {
			return
		}
		line := append(append([]byte(`{"x":1,"text":`), q...), `}`...)
		var f viewFinder
		v, ok := f.find(line, 1, text)
		if !ok {
			if quoted, err := jsontext.AppendQuote(nil, text); err == nil && bytes.Contains(line, quoted) {
				t.Fatalf("%q: not found in %q", text, line)
			}
			return
		}
		if back, err := v.text(line); err != nil || back != text {
			t.Fatalf("%q: the view %+v reads %q, %v", text, v, back, err)
		}
	})
}

// TestViewPack: a view survives its packing into blocks.span at the
// largest offset and length it may have.
func TestViewPack(t *testing.T) {
	for _, v := range []view{{0, 0, false}, {1, 2, true}, {maxView, maxView, true}, {maxView, 17, false}, {123456, maxView, false}} {
		if got := unpackView(v.pack()); got != v {
			t.Errorf("%+v packs and unpacks to %+v", v, got)
		}
		if v.pack() < 0 {
			t.Errorf("%+v packs to a negative %d", v, v.pack())
		}
	}
}

// TestViewFinder_Misses: in a long line whose texts are not in it, the
// finder gives up after viewMisses of them, then finds nothing more of
// the line; a text of the next line is looked for again.
func TestViewFinder_Misses(t *testing.T) {
	line := bytes.Repeat([]byte(`{"type":"text","text":"a word or two of text"},`), 100_000)
	var f viewFinder
	for i := range viewMisses {
		if _, ok := f.find(line, 1, "not in the line at all, text "+string(rune('a'+i%26))); ok {
			t.Fatal("found a text the line does not hold")
		}
	}
	if _, ok := f.find(line, 1, "a word or two of text"); ok {
		t.Errorf("after %d misses, a text of the line was still looked for", viewMisses)
	}
	v, ok := f.find(line, 2, "a word or two of text")
	if back, err := v.text(line); !ok || err != nil || back != "a word or two of text" {
		t.Errorf("the next line's text: %+v %v, %q %v", v, ok, back, err)
	}
}

// TestIndexLong: indexLong finds what bytes.Index finds, in texts that
// repeat the pattern's first bytes more often than it tries them.
func TestIndexLong(t *testing.T) {
	head := strings.Repeat("x", 40)
	pat := head + strings.Repeat("y", 60)
	for _, s := range []string{
		"", pat, "a" + pat, pat[:99], strings.Repeat(head+"z", 20) + pat + "tail",
		strings.Repeat(head, 30) + pat, strings.Repeat(head+"z", 20), strings.Repeat("x", 200) + strings.Repeat("y", 60),
	} {
		if got, want := indexLong([]byte(s), []byte(pat)), bytes.Index([]byte(s), []byte(pat)); got != want {
			t.Errorf("indexLong of a pattern in %q = %d, want %d", s, got, want)
		}
	}
	for _, p := range []string{"", "x", strings.Repeat("x", 64)} {
		s := strings.Repeat("ab", 50) + p
		if got, want := indexLong([]byte(s), []byte(p)), bytes.Index([]byte(s), []byte(p)); got != want {
			t.Errorf("indexLong(%q) = %d, want %d", p, got, want)
		}
	}
}
