package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRedact: an AWS key, an Anthropic key and a password planted in a
// prompt leave export, show and search as [REDACTED:rule] with --redact,
// scan counts them by rule without printing them, and the stored lines
// are unchanged (export without --redact is the transcript byte for byte).
func TestRedact(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "cairn.db")
	aws := "AKIAZ7VRSQ5TKQ2MBXNA"
	ant := "sk-ant-api03-" + strings.Repeat("Xw4kP9qLm2Vn8Rt5Yb7Zc3Df6Gh1Jk4", 4)[:93] + "AA"
	pw := "Zq8vT2mLx9Rk4Wn7"
	id := "0d0d0d0d-0000-4000-8000-000000005ec7"
	prompt := "deploy with AWS_ACCESS_KEY_ID=" + aws + " and ANTHROPIC_API_KEY=" + ant + " then db_password=" + pw + " please"
	transcript := strings.Replace(raceLine(id, 1), "question 1", prompt, 1) + raceLine(id, 2) + strings.Replace(raceLine(id, 3), "question 3", prompt, 1) + raceLine(id, 4)
	path := filepath.Join(dir, id+".jsonl")
	os.WriteFile(path, []byte(transcript), 0o644)
	if _, stderr, err := runMain(t, store, "import", "-q", path); err != nil {
		t.Fatal(err, stderr)
	}
	secrets := []string{aws, ant, pw}
	for _, args := range [][]string{
		{"export", id},
		{"export", "--format", "markdown", id},
		{"show", id, "1"},
		{"search", "deploy"},
		{"compress-before", "--format", "markdown", id, "2"},
		{"inject", id, "1"},
		{"compress-before", "--format", "claude", "--out", filepath.Join(dir, "cut"), "--cwd", dir, id, "2"},
	} {
		plain, _, err := runMain(t, store, args...)
		if err != nil {
			t.Fatal(args, err)
		}
		out, stderr, err := runMain(t, store, append([]string{args[0], "--redact"}, args[1:]...)...)
		if err != nil {
			t.Fatal(args, err)
		}
		if len(args) > 2 && args[2] == "claude" {
			// The session written is what leaves.
			files, _ := filepath.Glob(filepath.Join(dir, "cut", "*.jsonl"))
			plain, out = "", ""
			for i, f := range files {
				data, _ := os.ReadFile(f)
				if i == 0 {
					plain = string(data)
				} else {
					out = string(data)
				}
			}
			if len(files) != 2 {
				t.Fatalf("%d sessions written", len(files))
			}
			if strings.Contains(out, aws) {
				plain, out = out, plain
			}
		}
		if !strings.Contains(plain, aws) {
			t.Fatalf("%v without --redact lacks the key: the test plants nothing", args)
		}
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%v --redact: %s… leaves", args, s[:10])
			}
		}
		if !strings.Contains(out, "[REDACTED:aws-access-token]") || !strings.Contains(stderr, "redacted") {
			t.Errorf("%v --redact: no mark (%q)\n%s", args, stderr, out)
		}
	}
	if out, _, _ := runMain(t, store, "export", id); out != transcript {
		t.Error("the stored lines changed")
	}
	out, _, err := runMain(t, store, "scan")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"aws-access-token", "anthropic-api-key", "generic-api-key"} {
		if !strings.Contains(out, want) {
			t.Errorf("scan lacks %s:\n%s", want, out)
		}
	}
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("scan prints a secret")
		}
	}
}

// TestRedactIntoSharedStore: import --redact and migrate --redact store
// lines without the secrets (the store a team shares never holds them),
// and a later import of the grown transcript carries on.
func TestRedactIntoSharedStore(t *testing.T) {
	dir := t.TempDir()
	aws := "AKIAZ7VRSQ5TKQ2MBXNA"
	id := "0d0d0d0d-0000-4000-8000-000000005ec8"
	path := filepath.Join(dir, id+".jsonl")
	transcript := strings.Replace(raceLine(id, 1), "question 1", "key AWS_ACCESS_KEY_ID="+aws, 1) + raceLine(id, 2)
	os.WriteFile(path, []byte(transcript), 0o644)
	local, shared, imported := filepath.Join(dir, "local.db"), filepath.Join(dir, "shared.db"), filepath.Join(dir, "imported.db")
	if _, stderr, err := runMain(t, local, "import", "-q", path); err != nil {
		t.Fatal(err, stderr)
	}
	if _, stderr, err := runMain(t, local, "migrate", "--redact", "--to", shared); err != nil {
		t.Fatal(err, stderr)
	}
	if _, stderr, err := runMain(t, imported, "import", "-q", "--redact", path); err != nil {
		t.Fatal(err, stderr)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(raceLine(id, 3))
	f.Close()
	for _, store := range []string{shared, imported} {
		if out, stderr, err := runMain(t, store, "import", "--redact", path); err != nil || !strings.Contains(out, "1 appended") {
			t.Fatalf("%s: a later import: %s %s %v", store, out, stderr, err)
		}
		out, _, err := runMain(t, store, "export", id)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, aws) || !strings.Contains(out, "[REDACTED:aws-access-token]") || strings.Count(out, "\n") != 3 {
			t.Fatalf("%s holds:\n%s", store, out)
		}
		if out, _, _ := runMain(t, store, "search", "key"); strings.Contains(out, aws) || !strings.Contains(out, "REDACTED") {
			t.Fatalf("%s: search finds the key", store)
		}
	}
	if out, _, _ := runMain(t, local, "export", id); !strings.Contains(out, aws) {
		t.Fatal("the local store changed")
	}
}

// TestRedact_Edges: a password in a URL leaves no command with --redact
// and scan counts it; a title that cut an AWS key after 17 of its 20
// characters keeps none of them in sessions --redact; and search --redact
// finds no round by a secret's text, while other words still find it.
func TestRedact_Edges(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "cairn.db")
	aws, pw := "AKIAZ7VRSQ5TKQ2MBXNA", "Tr0ub4dor3"
	id := "0d0d0d0d-0000-4000-8000-000000005ec9"
	head := "deploy the release to production now, with the key "
	head += strings.Repeat("x", 80-17-len(head)-1) + " "
	prompt := head + aws + " then clone https://alice:" + pw + "@git.example.com/x.git"
	transcript := strings.Replace(raceLine(id, 1), "question 1", prompt, 1) + raceLine(id, 2)
	path := filepath.Join(dir, id+".jsonl")
	os.WriteFile(path, []byte(transcript), 0o644)
	if _, stderr, err := runMain(t, store, "import", "-q", path); err != nil {
		t.Fatal(err, stderr)
	}
	cut := aws[:17]
	if out, _, _ := runMain(t, store, "sessions"); !strings.Contains(out, cut+"…") {
		t.Fatalf("the title does not cut the key after 17 characters: the test plants nothing\n%s", out)
	}
	for _, args := range [][]string{
		{"sessions", "--redact"},
		{"sessions", "--redact", "--json"},
		{"export", "--redact", id},
		{"export", "--redact", "--format", "markdown", id},
		{"show", "--redact", id, "1"},
		{"search", "--redact", "deploy"},
		{"search", "--redact", "--json", "clone"},
	} {
		out, stderr, err := runMain(t, store, args...)
		if err != nil {
			t.Fatal(args, err, stderr)
		}
		for _, s := range []string{cut, pw} {
			if strings.Contains(out, s) {
				t.Errorf("%v: %s leaves:\n%s", args, s, out)
			}
		}
		if args[0] == "search" && !strings.Contains(out, id) {
			t.Errorf("%v: the round is not found by other words:\n%s", args, out)
		}
	}
	for _, q := range []string{aws, pw, "alice " + pw, "AKIAZ7VRSQ5T*", "deploy " + pw} {
		if out, _, _ := runMain(t, store, "search", q); !strings.Contains(out, id) {
			t.Fatalf("search %q finds nothing without --redact: the test proves nothing\n%s", q, out)
		}
		out, _, err := runMain(t, store, "search", "--redact", q)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, id) {
			t.Errorf("search --redact %q finds the round by a secret:\n%s", q, out)
		}
	}

	// A query of two words whose secret lies far from the other word, out
	// of the snippet: the block is still no hit of a redacted view.
	far := "0d0d0d0d-0000-4000-8000-00000000fa12"
	prompt = "rollout checklist first. " + strings.Repeat("then review the notes again. ", 100) + "key " + aws
	path = filepath.Join(dir, far+".jsonl")
	os.WriteFile(path, []byte(strings.ReplaceAll(strings.Replace(raceLine(far, 1), "question 1", prompt, 1)+raceLine(far, 2), id, far)), 0o644)
	if _, stderr, err := runMain(t, store, "import", "-q", path); err != nil {
		t.Fatal(err, stderr)
	}
	for _, q := range []string{"rollout " + aws, "rollout AKIAZ7VRSQ5T*", "checklist akiaz7vrsq5tkq2mbxna"} {
		if out, _, _ := runMain(t, store, "search", q); !strings.Contains(out, far) || strings.Contains(out, aws) {
			t.Fatalf("search %q without --redact does not find the round by a snippet without the key: the test proves nothing\n%s", q, out)
		}
		if out, _, _ := runMain(t, store, "search", "--redact", q); strings.Contains(out, far) {
			t.Errorf("search --redact %q finds the round by a secret outside its snippet:\n%s", q, out)
		}
	}
	if out, _, _ := runMain(t, store, "search", "--redact", "rollout checklist"); !strings.Contains(out, far) {
		t.Errorf("search --redact finds the round no more by other words:\n%s", out)
	}

	out, _, err := runMain(t, store, "scan")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "url-credentials") || !strings.Contains(out, "aws-access-token") || strings.Contains(out, pw) {
		t.Errorf("scan:\n%s", out)
	}
}

// TestRedact_CutKey: a private key written by a Write call, whose search
// snippet keeps its BEGIN line and some body lines but not its END, shows
// none of its body lines in any --redact output (issue 43: search showed
// 6 of 13), and the JSON outputs stay JSON.
func TestRedact_CutKey(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "cairn.db")
	id := "0d0d0d0d-0000-4000-8000-0000000c07ee"
	rng := rand.New(rand.NewPCG(43, 3))
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var body []string
	for range 13 {
		l := make([]byte, 64)
		for i := range l {
			l[i] = b64[rng.IntN(len(b64))]
		}
		body = append(body, string(l))
	}
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Join(body, "\n") + "\nAbCd==\n-----END RSA PRIVATE KEY-----\n"
	input, _ := json.Marshal(map[string]string{"file_path": "/w/deploy.pem", "content": key})
	line2 := fmt.Sprintf(`{"parentUuid":"00000000-0000-4000-8000-000000000001","isSidechain":false,"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"Write","input":%s}],"usage":{"input_tokens":3,"output_tokens":4}},"uuid":"00000000-0000-4000-8000-000000000002","timestamp":"2026-03-19T10:00:01.000Z","sessionId":%q,"cwd":"/w"}`+"\n", input, id)
	transcript := strings.Replace(raceLine(id, 1), "question 1", "write the deploy key file", 1) + line2
	path := filepath.Join(dir, id+".jsonl")
	os.WriteFile(path, []byte(transcript), 0o644)
	if _, stderr, err := runMain(t, store, "import", "-q", path); err != nil {
		t.Fatal(err, stderr)
	}
	if out, _, _ := runMain(t, store, "search", "Write"); !strings.Contains(out, body[0][:8]) || strings.Contains(out, "END RSA") {
		t.Fatalf("the snippet does not cut the key before its END: the test plants nothing\n%s", out)
	}
	for _, args := range [][]string{
		{"search", "--redact", "Write"},
		{"search", "--redact", "--json", "Write"},
		{"search", "--redact", "deploy"},
		{"show", "--redact", id, "1"},
		{"export", "--redact", id},
		{"sessions", "--redact", "--json"},
	} {
		out, stderr, err := runMain(t, store, args...)
		if err != nil {
			t.Fatal(args, err, stderr)
		}
		shown := 0
		for _, l := range body {
			for i := 0; i+8 <= len(l); i++ {
				if strings.Contains(out, l[i:i+8]) {
					shown++
					break
				}
			}
		}
		if shown > 0 {
			t.Errorf("%v: %d of the key's 13 body lines show:\n%s", args, shown, out)
		}
		if slices.Contains(args, "--json") && !json.Valid([]byte(out)) {
			t.Errorf("%v: not JSON:\n%s", args, out)
		}
	}
}
