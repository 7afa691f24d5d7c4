package redact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/redact"
)

// A password in a URL is found by cairn's own rule, which gitleaks'
// default config lacks; variables and placeholders are not secrets.
func TestFind_URLCredentials(t *testing.T) {
	r, _ := redact.New()
	for _, c := range []struct {
		text, secret string
	}{
		{"git clone https://alice:Tr0ub4dor3@git.example.com/x.git", "alice:Tr0ub4dor3"},
		{`DATABASE_URL="postgres://app:s3cret@db:5432/prod"`, "app:s3cret"},
		{"redis://:hunter2@cache:6379/0", ":hunter2"},
		{"see https://user:pass@host now", "user:pass"},
		{"https://user:${PASSWORD}@host", ""},
		{"https://user:$PASS@host", ""},
		{"https://user:<password>@host", ""},
		{"https://user:****@host", ""},
		{"git@github.com:org/repo.git", ""},
		{"https://host/path?a=b:c@d", ""},
	} {
		var got string
		for _, f := range r.Find(c.text) {
			if f.Rule == "url-credentials" {
				got = f.Secret
			}
		}
		if got != c.secret {
			t.Errorf("%q: secret %q, want %q", c.text, got, c.secret)
		}
		if c.secret == "" {
			continue
		}
		if out, _ := r.String(c.text); strings.Contains(out, c.secret) || !strings.Contains(out, "[REDACTED:url-credentials]@") {
			t.Errorf("String(%q) = %q", c.text, out)
		}
	}
	if f := redact.Gitleaks().Find("https://alice:Tr0ub4dor3@git.example.com/x.git"); len(f) != 0 {
		t.Logf("gitleaks now finds %v: cairn's rule may go", f)
	}
}

// A preview that cut a secret (17 of an AWS key's 20 characters, as a
// session's title kept it) keeps none of it; plain words an ellipsis
// cuts stay, and JSON stays JSON.
func TestString_Cut(t *testing.T) {
	r, _ := redact.New()
	for _, c := range []struct{ in, want string }{
		{"deploy with AWS_ACCESS_KEY_ID=AKIAZ7VRSQ5TKQ2MB…", "deploy with …"},
		{"deploy with key AKIAZ7VRSQ5TKQ2MB…", "deploy with key …"},
		{"…Q5TKQ2MBXNA and the rest", "… and the rest"},
		{"Let me check the configuration…", "Let me check the configuration…"},
		{"clone https://alice:Tr0ub4d…", "clone …"},
		{"short abc1234…", "short abc1234…"},
		{"nothing cut here AKIAZ7VRSQ5TKQ2MB", "nothing cut here AKIAZ7VRSQ5TKQ2MB"},
	} {
		if got, _ := r.String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	body := `{"title":"AKIAZ7VRSQ5TKQ2MB…","p":"a\nAKIAZ7VRSQ5TKQ2MB…","q":"\u00e9AKIAZ7VRSQ5TKQ2MB…","r":"…AKIAZ7VRSQ5TKQ2MB\"x"}`
	got, _ := r.String(body)
	var v map[string]string
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if strings.Contains(got, "AKIAZ7VR") {
		t.Errorf("%s", got)
	}
	if v["p"] != "a\n…" || v["q"] != "é…" {
		t.Errorf("%q", v)
	}
	// Whole lines of a transcript are never cut.
	if got, _ := r.Secrets("see AKIAZ7VRSQ5TKQ2MB…"); got != "see AKIAZ7VRSQ5TKQ2MB…" {
		t.Errorf("Secrets = %q", got)
	}
}

// A snippet's markers do not hide a secret; a match inside a secret loses
// its markers, and a snippet whose match shows only inside secrets is
// reported, so that its hit is dropped.
func TestSnippet(t *testing.T) {
	r, _ := redact.New()
	const s, e = "\x02", "\x03"
	ant := "sk-ant-api03-" + strings.Repeat("Xw4kP9qLm2Vn8Rt5Yb7Zc3Df6Gh1Jk4", 4)[:93] + "AA"
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"deploy with AWS_ACCESS_KEY_ID=" + s + "AKIAZ7VRSQ5TKQ2MBXNA" + e + " now", "deploy with AWS_ACCESS_KEY_ID=[REDACTED:aws-access-token] now", false},
		{s + "deploy" + e + " with AWS_ACCESS_KEY_ID=AKIAZ7VRSQ5TKQ2MBXNA now", s + "deploy" + e + " with AWS_ACCESS_KEY_ID=[REDACTED:aws-access-token] now", true},
		{"key " + strings.Replace(ant, "api03", s+"api03"+e, 1) + " ok", "key [REDACTED:anthropic-api-key] ok", false},
		{"…" + s + "deploy" + e + " AKIAZ7VRSQ5TKQ2…", "…" + s + "deploy" + e + " …", true},
		{"run " + s + "go" + e + " test", "run " + s + "go" + e + " test", true},
		{"clone https://alice:" + s + "Tr0ub4dor3" + e + "@git.example.com/x", "clone https://[REDACTED:url-credentials]@git.example.com/x", false},
	} {
		got, _, ok := r.Snippet(c.in, s, e)
		if got != c.want || ok != c.ok {
			t.Errorf("Snippet(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
