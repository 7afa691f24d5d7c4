package assemble

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// reference is tiktoken-go's cl100k_base: the implementation BPE must agree with.
func reference(tb testing.TB) func(string) int {
	tb.Helper()
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(tiktoken.MODEL_CL100K_BASE)
	if err != nil {
		tb.Fatal(err)
	}
	return func(s string) int { return len(enc.EncodeOrdinary(s)) }
}

// corpus returns texts of the kinds cairn budgets: its own Go source and
// docs, XML and JSON, and some harder cases.
func corpus(tb testing.TB) map[string]string {
	tb.Helper()
	texts := map[string]string{
		"contractions": "It's what we've done; they'll say I'M sure he'D go, 'RE 'Ll 'x.",
		"whitespace":   "a  b\t\tc \n\n  d   \r\n\r\n  \n e\u00a0\u2003f \u3000 ",
		"numbers":      "1 12 123 1234 12345 ٣٤٥ 3.14159 1e10 v1.26.0 0x1f",
		"unicode":      "Über naïve café — 日本語のテキスト, 한국어, Ελληνικά, emoji 🙂🚀 ok.",
		"punct":        "<<>> ... !!!\n\n?? ;;\r\n }}}} ' \" '' --flag=value",
		"invalid":      "ok \xff\xfe bad \xc3 bytes",
	}
	for _, glob := range []string{"../*.go", "../sqlite/*.go", "../sqlite/migration/*.sql", "testdata/*.golden", "../AGENTS.md"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			buf, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			texts[p] = string(buf)
		}
	}
	return texts
}

func TestBPEMatchesTiktoken(t *testing.T) {
	want := reference(t)
	got := MustBPE()
	for name, text := range corpus(t) {
		if g, w := got.Count(text), want(text); g != w {
			t.Errorf("%s: BPE counts %d tokens, tiktoken-go %d", name, g, w)
		}
	}
}

func FuzzBPE(f *testing.F) {
	for _, text := range corpus(f) {
		f.Add(text[:min(len(text), 2000)])
	}
	want := reference(f)
	got := MustBPE()
	f.Fuzz(func(t *testing.T, text string) {
		if g, w := got.Count(text), want(text); g != w {
			t.Fatalf("BPE counts %d tokens, tiktoken-go %d, for %q", g, w, text)
		}
	})
}

// TestEstimateDrift measures how far the chars/4 estimate drifts from the
// BPE count on each kind of text, and pins the documented ranges so that a
// change in either shows up here.
func TestEstimateDrift(t *testing.T) {
	bpe := MustBPE()
	for _, c := range []struct {
		kind     string
		text     string
		min, max float64 // Estimate/BPE
	}{
		{"english prose", strings.Repeat("The frame records what was decided and why, so the next agent can pick up the work without reading the whole log. ", 20), 1.1, 1.3},
		{"context xml", strings.Repeat(`<child id="f12" status="completed"><title>User authentication</title><results>JWT auth with refresh tokens; User model, middleware, login routes.</results><artifacts>src/auth/*, src/models/User.ts</artifacts></child>`+"\n", 20), 0.95, 1.15},
		{"go source", corpus(t)["../session.go"], 0.8, 1.2},
		{"json", strings.Repeat(`{"id":"f12","status":"completed","artifacts":["src/auth/jwt.go","src/auth/jwt_test.go"],"tokens":1234}`, 20), 0.7, 0.95},
		{"cjk", strings.Repeat("日本語のテキストを数える。", 40), 0.6, 0.9},
		{"numbers", strings.Repeat("3.14159 2.71828 1.41421 ", 40), 0.3, 0.5},
	} {
		if c.text == "" {
			continue
		}
		est, exact := Estimate.Count(c.text), bpe.Count(c.text)
		ratio := float64(est) / float64(exact)
		t.Logf("%-14s %6d bytes %5d runes: estimate %5d, BPE %5d, estimate/BPE %.2f", c.kind, len(c.text), utf8.RuneCountInString(c.text), est, exact, ratio)
		if ratio < c.min || ratio > c.max {
			t.Errorf("%s: estimate/BPE = %.2f, outside the documented [%.2f, %.2f]", c.kind, ratio, c.min, c.max)
		}
	}
}

func BenchmarkBPE(b *testing.B) {
	text := corpus(b)["../doc.go"]
	c := MustBPE()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		c.Count(text)
	}
}

func BenchmarkTiktoken(b *testing.B) {
	text := corpus(b)["../doc.go"]
	c := reference(b)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		c(text)
	}
}
