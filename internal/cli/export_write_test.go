package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExport_EveryClientRedactsAndResolvesOut: every client's surgical
// export goes through one path: with --redact the file written holds no
// planted secret, only its mark, and a relative --out is a folder of the
// working directory cairn was given, not of the process's.
func TestExport_EveryClientRedactsAndResolvesOut(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "cairn.db")
	aws := "AKIAZ7VRSQ5TKQ2MBXNA"
	id := "0d0d0d0d-0000-4000-8000-000000005ec8"
	prompt := "deploy with AWS_ACCESS_KEY_ID=" + aws + " please"
	transcript := strings.Replace(raceLine(id, 1), "question 1", prompt, 1) + raceLine(id, 2) + strings.Replace(raceLine(id, 3), "question 3", prompt, 1) + raceLine(id, 4)
	path := filepath.Join(dir, id+".jsonl")
	os.WriteFile(path, []byte(transcript), 0o644)
	if _, stderr, err := runMain(t, store, "import", "-q", path); err != nil {
		t.Fatal(err, stderr)
	}
	for _, format := range []string{"claude", "codex", "gemini", "pi"} {
		t.Run(format, func(t *testing.T) {
			wd := t.TempDir()
			var stdout, stderr bytes.Buffer
			m := NewMain(strings.NewReader(""), &stdout, &stderr)
			m.Getwd = func() (string, error) { return wd, nil }
			env := map[string]string{"CAIRN_STORE": store, "HOME": filepath.Join(wd, "home")}
			m.Getenv = func(k string) string { return env[k] }
			if err := m.Run(context.Background(), []string{"compress-before", "--format", format, "--redact", "--out", "cut", "--cwd", dir, id, "2"}); err != nil {
				t.Fatal(err, stderr.String())
			}
			files, _ := filepath.Glob(filepath.Join(wd, "cut", "*"))
			if len(files) != 1 {
				t.Fatalf("files in the working directory's cut/: %v\n%s%s", files, stdout.String(), stderr.String())
			}
			data, _ := os.ReadFile(files[0])
			if bytes.Contains(data, []byte(aws)) || !bytes.Contains(data, []byte("[REDACTED:aws-access-token]")) {
				t.Errorf("--redact: %s holds the key or no mark:\n%.2000s", files[0], data)
			}
			if !strings.Contains(stderr.String(), "redacted") {
				t.Errorf("--redact says nothing: %q", stderr.String())
			}
		})
	}
}
