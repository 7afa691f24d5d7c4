package main

import (
	"os"
	"path/filepath"
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
