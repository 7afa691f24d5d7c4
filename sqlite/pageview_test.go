package sqlite

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzUnquoteStream: a JSON string unquoted a window at a time (windows
// of 1 to 16 bytes, cut by safeCut) gives the value unquote gives of it
// whole, its full length, and its first bytes up to the kept limit.
func FuzzUnquoteStream(f *testing.F) {
	for _, s := range []string{`"plain text"`, `"a\nb\t\"c\"\\d\/"`, `"\u001b[31mred\u001b[0m"`, `"\ud83d\ude00 smile \ud83d\ude00"`,
		`"\ud800 lone \udc00 low"`, `"é ü 日本 😀"`, `"\u00e9\u2028"`, `"\\\\\\u0041\\"`, `""`} {
		f.Add([]byte(s), uint8(3), uint8(5))
	}
	f.Fuzz(func(t *testing.T, q []byte, window, limit uint8) {
		if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
			return
		}
		want, err := unquote(q)
		if _, jerr := jsontext.AppendUnquote(nil, q); err != nil || jerr != nil {
			return // a view is only ever of a string that reads back
		}
		defer func(w int) { spanWindow = w }(spanWindow)
		spanWindow = 1 + int(window)%16
		p := pageReader{whole: q, limit: int(limit)}
		got, size, err := p.unquoteStream(0, len(q))
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		keep := min(len(want), p.keepBytes())
		if size != len(want) || got != want[:keep] {
			t.Fatalf("%q in windows of %d: %q, %d bytes; want %q, %d bytes", q, spanWindow, got, size, want[:keep], len(want))
		}
	})
}
