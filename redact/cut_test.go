package redact_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/redact"
)

// secretSample is a secret one rule finds, in the line it was found in.
type secretSample struct {
	rule, line, secret string
}

// secretKinds returns a secret of every kind the redactor knows, as it
// finds them in the planted texts and those built from every rule's
// keywords: one per rule, the longest.
func secretKinds(t *testing.T) []secretSample {
	r, _ := redact.New()
	best := map[string]secretSample{}
	texts := append(planted(), keywordTexts()...)
	texts = append(texts, "git clone https://alice:Tr0ub4dor3xK9@git.example.com/x.git\n", pemKey("RSA PRIVATE KEY", 64, 13), pemKey("OPENSSH PRIVATE KEY", 70, 6))
	for _, text := range texts {
		for _, f := range r.Find(text) {
			line := ""
			for _, l := range strings.Split(text, "\n") {
				if strings.Contains(l, f.Secret) {
					line = l
					break
				}
			}
			if line == "" { // a secret of several lines: the text is its line
				line = text
			}
			if len(f.Secret) > len(best[f.Rule].secret) {
				best[f.Rule] = secretSample{f.Rule, line, f.Secret}
			}
		}
	}
	var out []secretSample
	for _, s := range best {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rule < out[j].rule })
	if len(out) < 50 {
		t.Fatalf("only %d kinds of secret found", len(out))
	}
	return out
}

// pemKey returns a private key of that type whose body has lines whole
// lines of width characters (PEM 64, OpenSSH 70) and a last short one.
func pemKey(typ string, width, lines int) string {
	rng := rand.New(rand.NewPCG(7, uint64(width)))
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	line := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = b64[rng.IntN(len(b64))]
		}
		return string(b)
	}
	var b strings.Builder
	b.WriteString("-----BEGIN " + typ + "-----\n")
	for range lines {
		b.WriteString(line(width) + "\n")
	}
	b.WriteString(line(22) + "==\n-----END " + typ + "-----\n")
	return b.String()
}

// pieces returns the 8-character pieces of a secret's value that must
// never show: every run of 8 characters that holds no line break or
// space (a private key's header and lines are not the secret; its body
// is).
func pieces(secret string) []string {
	var out []string
	for _, field := range strings.FieldsFunc(secret, func(r rune) bool { return r == '\n' || r == '\r' || r == ' ' || r == '\\' }) {
		if strings.Contains(field, "-----") || strings.Contains(field, "PRIVATE") {
			continue
		}
		for i := 0; i+redact.MinCut <= len(field); i++ {
			out = append(out, field[i:i+redact.MinCut])
		}
	}
	return out
}

// shows returns the first piece of secret that out shows, if any.
func shows(out, secret string) string {
	for _, p := range pieces(secret) {
		if strings.Contains(out, p) {
			return p
		}
	}
	return ""
}

// TestRedact_EveryCut: a secret of every kind the redactor knows, cut at
// every offset as a preview, a title or a search snippet cuts it (the
// rest replaced by an ellipsis, before or after), shows no 8-character
// piece of itself once redacted: as text ([redact.Redactor.String]), as
// a search snippet with a match marked ([redact.Redactor.Snippet]), and
// as a JSON document's value with its line breaks escaped
// ([redact.Redactor.JSON]). A private key cut before its END line or
// after its BEGIN line is one of them.
func TestRedact_EveryCut(t *testing.T) {
	r, _ := redact.New()
	kinds := secretKinds(t)
	failures := map[string]int{}
	cuts := 0
	for _, k := range kinds {
		at := strings.Index(k.line, k.secret)
		if at < 0 {
			t.Fatalf("%s: secret not in its line", k.rule)
		}
		fail := func(how, out string) {
			if p := shows(out, k.secret); p != "" {
				if failures[k.rule] == 0 {
					t.Errorf("%s, %s: shows %q in %q", k.rule, how, p, out)
				}
				failures[k.rule]++
			}
		}
		if strings.Contains(k.secret, "\n") {
			// A snippet's window inside a key: cut at both ends.
			step := 7
			if testing.Short() {
				step = 23
			}
			for _, w := range []int{40, 100, 200, 400} {
				for i := 0; i+w <= len(k.line); i += step {
					cuts++
					text := redact.Ellipsis + k.line[i:i+w] + redact.Ellipsis
					out, _ := r.String(text)
					fail(fmt.Sprintf("window %d at %d, text", w, i), out)
					doc, _ := json.Marshal([]string{text})
					fail(fmt.Sprintf("window %d at %d, JSON", w, i), string(r.JSON(doc)))
				}
			}
		}
		for i := 0; i <= len(k.secret); i++ {
			cut := at + i
			for _, text := range []string{
				"before: " + k.line[:cut] + redact.Ellipsis,
				redact.Ellipsis + k.line[cut:] + " after",
			} {
				cuts++
				out, _ := r.String(text)
				fail(fmt.Sprintf("cut at %d, text", i), out)
				snip, _, _ := r.Snippet(strings.Replace(text, "before", "<b>before</b>", 1), "<b>", "</b>")
				fail(fmt.Sprintf("cut at %d, snippet", i), snip)
				doc, _ := json.Marshal(map[string]any{"title": text, "blocks": []string{"x", text}})
				red := r.JSON(doc)
				if !json.Valid(red) {
					t.Fatalf("%s, cut at %d: JSON no longer valid: %s", k.rule, i, red)
				}
				var back struct {
					Title  string
					Blocks []string
				}
				json.Unmarshal(red, &back)
				fail(fmt.Sprintf("cut at %d, JSON", i), back.Title+"\n"+strings.Join(back.Blocks, "\n"))
			}
		}
	}
	shown := 0
	for _, n := range failures {
		shown += n
	}
	t.Logf("%d kinds of secret, %d cut texts (each as text, snippet and JSON); a piece shown by %d outputs: %v", len(kinds), cuts, shown, failures)
}

// TestJSON: a private key's BEGIN in one value and its END in another
// are redacted value by value: the document stays JSON, the values
// between keep every byte, and no 8 characters of the body show. Run
// over the serialized document, the private-key rule matched from the
// one across the quotes to the other and took the values between.
func TestJSON(t *testing.T) {
	r, _ := redact.New()
	key := pemKey("RSA PRIVATE KEY", 64, 13)
	end := strings.Index(key, "-----END")
	doc, _ := json.Marshal(map[string]any{"a_prompt": key[:end], "b_between": "kept as it is", "c_reply": "done\n" + key[end:]})
	whole, _ := r.String(string(doc))
	out := r.JSON(doc)
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("not JSON: %v: %s", err, out)
	}
	if back["b_between"] != "kept as it is" {
		t.Errorf("the value between: %q", back["b_between"])
	}
	if p := shows(string(out), key); p != "" {
		t.Errorf("shows %q: %s", p, out)
	}
	t.Logf("the serialized document redacted whole: JSON %v, %d bytes of %d", json.Valid([]byte(whole)), len(whole), len(doc))
}
