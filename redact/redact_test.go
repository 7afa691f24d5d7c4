package redact_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/redact"
)

// Secrets planted in a prompt (an AWS key, an Anthropic key, a GitHub
// token) are replaced by a mark naming the rule; the text around them is
// kept.
func TestString(t *testing.T) {
	r, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	aws := "AKIAZ7VRSQ5TKQ2MBXNA"
	ant := "sk-ant-api03-" + strings.Repeat("Xw4kP9qLm2Vn8Rt5Yb7Zc3Df6Gh1Jk4", 4)[:93] + "AA"
	gh := "ghp_" + "R7xk2Lm9Qp4Vn8Tz3Wb6Yc1Hd5Jf0Ks7Ng2P"
	pw := "Zq8vT2mLx9Rk4Wn7"
	text := "deploy with AWS_ACCESS_KEY_ID=" + aws + "\nANTHROPIC_API_KEY=" + ant + "\ntoken " + gh + " ok\ndb_password=" + pw + "\n"
	out, found := r.String(text)
	for _, s := range []string{aws, ant, gh, pw} {
		if strings.Contains(out, s) {
			t.Errorf("%s… left in %q", s[:8], out)
		}
	}
	if !strings.Contains(out, "deploy with") || !strings.Contains(out, "[REDACTED:") {
		t.Errorf("out = %q", out)
	}
	rules := map[string]bool{}
	for _, f := range found {
		rules[f.Rule] = true
	}
	t.Logf("rules: %v\n%s", rules, out)
	if len(found) < 4 {
		t.Errorf("%d findings, want 4: %v", len(found), rules)
	}
}

// Text without secrets comes back as it was.
func TestString_Clean(t *testing.T) {
	r, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	text := "Refactor the sessions table; run go test ./... and commit.\n"
	if out, found := r.String(text); out != text || len(found) != 0 {
		t.Fatalf("%q %v", out, found)
	}
}

// One Redactor serves concurrent callers (the viewer's requests): rules
// compiled on first use are compiled once, and every caller finds the same.
func TestFind_Concurrent(t *testing.T) {
	r, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	text := "AWS_ACCESS_KEY_ID=AKIAZ7VRSQ5TKQ2MBXNA\ntoken ghp_R7xk2Lm9Qp4Vn8Tz3Wb6Yc1Hd5Jf0Ks7Ng2P\n"
	var wg sync.WaitGroup
	counts := make([]int, 8)
	for i := range counts {
		wg.Go(func() { counts[i] = len(r.Find(text)) })
	}
	wg.Wait()
	for i, n := range counts {
		if n != counts[0] || n == 0 {
			t.Fatalf("caller %d found %d, caller 0 %d", i, n, counts[0])
		}
	}
}
