package cli

import (
	"bytes"
	"context"
	"fmt"
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

// TestExport_OpencodeRedacts: a surgical export into opencode's store
// honours --redact as every other client's does: secrets planted in a
// prompt, a tool call's input and its result are in neither opencode.db
// (1.2 and later) nor the JSON storage (1.1), nor the log cairn mirrors,
// only their marks; without --redact they are there, as written.
func TestExport_OpencodeRedacts(t *testing.T) {
	dir := t.TempDir()
	aws := "AKIAZ7VRSQ5TKQ2MBXNA"
	ant := "sk-ant-api03-" + strings.Repeat("Xw4kP9qLm2Vn8Rt5Yb7Zc3Df6Gh1Jk4", 4)[:93] + "AA"
	ghp := "ghp_R8fK2mQ7vX4nL9tB3wZ6yH1pD5sC0jG8aE2u"
	id := "0d0d0d0d-0000-4000-8000-0000000de7ac"
	at := 0
	line := func(typ, msg string) string {
		at++
		parent := "null"
		if at > 1 {
			parent = fmt.Sprintf(`"00000000-0000-4000-8000-%012d"`, at-1)
		}
		return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":%q,"message":%s,"uuid":"00000000-0000-4000-8000-%012d","timestamp":"2026-03-19T10:%02d:00.000Z","sessionId":%q,"cwd":%q}`+"\n",
			parent, typ, msg, at, at, id, dir)
	}
	transcript := line("user", `{"role":"user","content":"deploy with AWS_ACCESS_KEY_ID=`+aws+` please"}`) +
		line("assistant", `{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ANTHROPIC_API_KEY=`+ant+` ./deploy.sh"}}]}`) +
		line("user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"deployed; the token is `+ghp+`"}]}`) +
		line("assistant", `{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"Deployed."}]}`) +
		line("user", `{"role":"user","content":"check the logs"}`) +
		line("assistant", `{"id":"msg_3","role":"assistant","content":[{"type":"text","text":"The logs are clean."}]}`)
	path := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(path, []byte(transcript), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, from string }{
		{"db", "../../opencode/testdata/1.18.33/opencode.db"},
		{"storage", "../../opencode/testdata/1.1.65/storage"},
	} {
		for _, redacted := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/redact=%v", c.name, redacted), func(t *testing.T) {
				root := t.TempDir()
				data := filepath.Join(root, "data")
				dst := filepath.Join(data, filepath.Base(c.from))
				if err := os.CopyFS(dst, os.DirFS(c.from)); err != nil { // the storage folder
					b, rerr := os.ReadFile(c.from) // opencode.db
					if rerr != nil || os.MkdirAll(data, 0o755) != nil || os.WriteFile(dst, b, 0o644) != nil {
						t.Fatal(err, rerr)
					}
				}
				store := filepath.Join(root, "cairn.db")
				env := map[string]string{"CAIRN_STORE": store, "HOME": root}
				if out, errOut, err := runEnv(t, env, "import", "-q", path); err != nil {
					t.Fatal(err, out, errOut)
				}
				args := []string{"revive", "--to", "opencode", "--out", data, "--cwd", dir, id}
				if redacted {
					args = append(args, "--redact")
				}
				out, errOut, err := runEnv(t, env, args...)
				if err != nil {
					t.Fatal(err, out, errOut)
				}
				var written []byte
				for _, d := range []string{data, filepath.Join(root, "opencode")} {
					err := filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
						if err == nil && !e.IsDir() {
							b, err := os.ReadFile(p)
							written = append(written, b...)
							return err
						}
						return err
					})
					if err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Contains(written, []byte("check the logs")) {
					t.Fatalf("the export is not in %s:\n%s%s", data, out, errOut)
				}
				for _, secret := range []string{aws, ant, ghp} {
					if has := bytes.Contains(written, []byte(secret)); has == redacted {
						t.Errorf("--redact %v: opencode's store holds %s: %v", redacted, secret, has)
					}
				}
				for _, mark := range []string{"[REDACTED:aws-access-token]", "[REDACTED:anthropic-api-key]", "[REDACTED:github-pat]"} {
					if has := bytes.Contains(written, []byte(mark)); has != redacted {
						t.Errorf("--redact %v: opencode's store holds %s: %v", redacted, mark, has)
					}
				}
				if strings.Contains(errOut, "redacted") != redacted {
					t.Errorf("--redact %v: stderr %q", redacted, errOut)
				}
			})
		}
	}
}
