package redact_test

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/cairn-dev/cairn/redact"
)

// The detector with gitleaks' rules (not cairn's own) finds exactly what gitleaks' detect.DetectString finds with
// its default config (rule, line, secret), on planted secrets, on text
// built from every rule's keywords, and on the sample transcripts: whole,
// and line by line (the long ones only without -short and -race: minutes).
func TestFind_SameAsGitleaks(t *testing.T) {
	r := redact.Gitleaks()
	g, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	var total int
	check := func(name, text string) {
		t.Helper()
		got := keys(r.Find(text))
		var want []string
		for _, f := range g.DetectString(text) {
			if f.Secret != "" {
				want = append(want, key(f.RuleID, f.StartLine+1, f.Secret))
			}
		}
		slices.Sort(want)
		total += len(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", name, got, want)
		}
	}
	for i, text := range planted() {
		check(fmt.Sprintf("planted %d", i), text)
	}
	for i, text := range keywordTexts() {
		check(fmt.Sprintf("keywords %d", i), text)
	}
	for _, root := range []string{"../testdata", "../../shared/testdata/transcripts"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// gitleaks takes seconds on a long session whole (cairn too);
			// its lines are compared one by one.
			if len(data) < 256<<10 {
				check(path, string(data))
			} else if testing.Short() || raceEnabled {
				return nil
			}
			for i, line := range strings.SplitAfter(string(data), "\n") {
				check(fmt.Sprintf("%s:%d", path, i+1), line)
			}
			return nil
		})
	}
	if total == 0 {
		t.Fatal("gitleaks found nothing: the comparison proves nothing")
	}
	t.Logf("%d findings compared", total)
}

func key(rule string, line int, secret string) string {
	return fmt.Sprintf("%s:%d:%s", rule, line, secret)
}

func keys(found []redact.Finding) []string {
	var out []string
	for _, f := range found {
		out = append(out, key(f.Rule, f.Line, f.Secret))
	}
	slices.Sort(out)
	return out
}

// planted is text with secrets where gitleaks' details matter: several a
// line, the last line without a newline, CRLF, `gitleaks:allow`, stop
// words, a generic finding inside a specific one, allowlisted values.
func planted() []string {
	aws := "AKIAZ7VRSQ5TKQ2MBXNA"
	ant := "sk-ant-api03-" + strings.Repeat("Xw4kP9qLm2Vn8Rt5Yb7Zc3Df6Gh1Jk4", 4)[:93] + "AA"
	gh := "ghp_" + "R7xk2Lm9Qp4Vn8Tz3Wb6Yc1Hd5Jf0Ks7Ng2P"
	pw := "Zq8vT2mLx9Rk4Wn7"
	return []string{
		"deploy with AWS_ACCESS_KEY_ID=" + aws + "\nANTHROPIC_API_KEY=" + ant + "\ntoken " + gh + " ok\ndb_password=" + pw + "\n",
		"no newline at all: api_key=" + pw,
		"first line\nsecond line password=" + pw + " end",
		"a\r\nb api_key=\"" + pw + "\"\r\nc " + aws + "\r\n",
		"api_key=" + pw + " # gitleaks:allow\napi_key=" + pw + "\n",
		"api_key=" + aws + "\n",
		"password=example_password_123\napi_key=AKIAIOSFODNN7EXAMPLE\nsecret=\"${SECRET_FROM_ENV}\"\n",
		"client_secret: 'test1234test1234test'\ntoken=xxxxxxxxxxxxxxxxxxxxxxxx\n",
		`{"env":{"OPENAI_API_KEY":"sk-proj-` + strings.Repeat("aB3dE5fG7hJ9kL1m", 5) + `T3BlbkFJ` + strings.Repeat("nP2qR4sT6uV8wX0y", 5) + `"}}` + "\n",
		"Authorization: Bearer " + strings.Repeat("Zx9Qw8Er7Ty6", 4) + "\n",
		"-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEAx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz\n", 6) + "-----END RSA PRIVATE KEY-----\n",
		"",
	}
}

// keywordTexts put each rule's keywords beside values that look like
// secrets, so most rules' regexes, entropy checks and allowlists run.
func keywordTexts() []string {
	rng := rand.New(rand.NewPCG(1, 2))
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	token := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alnum[rng.IntN(len(alnum))]
		}
		return string(b)
	}
	var texts []string
	for _, kw := range redact.Keywords() {
		var b strings.Builder
		for _, n := range []int{16, 20, 32, 40, 64} {
			fmt.Fprintf(&b, "%s_token = \"%s\"\n", kw, token(n))
			fmt.Fprintf(&b, "export %s_KEY=%s%s\n", strings.ToUpper(kw), kw, token(n))
			fmt.Fprintf(&b, "%s%s ", kw, token(n))
		}
		texts = append(texts, b.String())
	}
	return texts
}
