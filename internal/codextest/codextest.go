// Package codextest runs the real Codex CLI in tests: offline, against a
// stand-in Responses API on loopback ([fakeapi.Responses]), with a scratch
// HOME and CODEX_HOME. The binary is $CAIRN_CODEX (.ci/setup-codex.sh
// installs it and exports the variable), else the one it puts under
// /tmp/codex.
//
// Outside CI a missing binary skips the test with a loud reason; in CI
// (CI=true) it fails it.
package codextest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// DefaultBinary is where .ci/setup-codex.sh installs the native client.
const DefaultBinary = "/tmp/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"

// Binary returns the client to run, or skips (fails in CI) the test.
func Binary(tb testing.TB) string {
	tb.Helper()
	path := os.Getenv("CAIRN_CODEX")
	if path == "" {
		path = DefaultBinary
	}
	if info, err := os.Stat(path); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
		return path
	}
	msg := "REAL-CLIENT END-TO-END TEST NOT RUN: no Codex binary at " + path +
		"; run `source .ci/setup-codex.sh` (sets CAIRN_CODEX) and test again"
	if ci := os.Getenv("CI"); ci == "true" || ci == "1" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return ""
}

// A Home is a scratch Codex installation: HOME, CODEX_HOME with a
// config.toml pointing at the stand-in API, and a working directory.
type Home struct {
	Home, CodexHome, Cwd string
}

// NewHome makes a scratch home whose config sends Codex to baseURL (the
// stand-in's URL, without /v1).
func NewHome(tb testing.TB, baseURL string) *Home {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	h := &Home{Home: root, CodexHome: filepath.Join(root, ".codex"), Cwd: filepath.Join(root, "work")}
	for _, d := range []string{h.CodexHome, h.Cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	config := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
env_key = "FAKE_KEY"
`, baseURL)
	if err := os.WriteFile(filepath.Join(h.CodexHome, "config.toml"), []byte(config), 0o644); err != nil {
		tb.Fatal(err)
	}
	return h
}

var threadRE = regexp.MustCompile(`(?m)^session id: ([0-9a-f-]{36})`)

// Exec runs `codex exec --skip-git-repo-check -s danger-full-access ARGS`
// in the home's working directory and returns the thread id it printed.
// Nothing of the real environment but PATH reaches it.
func (h *Home) Exec(tb testing.TB, bin string, args ...string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args = append([]string{"exec", "--skip-git-repo-check", "-s", "danger-full-access"}, args...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = h.Cwd
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.Home, "CODEX_HOME=" + h.CodexHome,
		"FAKE_KEY=sk-test", "LANG=C.UTF-8", "TZ=UTC", "TERM=dumb", "NO_COLOR=1"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &stdout, &stderr, nil
	if err := cmd.Run(); err != nil {
		tb.Fatalf("codex %v: %v\nstdout: %s\nstderr: %s", args, err, stdout.Bytes(), stderr.Bytes())
	}
	m := threadRE.FindSubmatch(append(stderr.Bytes(), stdout.Bytes()...))
	if m == nil {
		tb.Fatalf("codex %v: no session id in its output\nstdout: %s\nstderr: %s", args, stdout.Bytes(), stderr.Bytes())
	}
	return string(m[1])
}

// Rollout returns the path of a thread's rollout under the home.
func (h *Home) Rollout(tb testing.TB, id string) string {
	tb.Helper()
	matches, _ := filepath.Glob(filepath.Join(h.CodexHome, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl"))
	if len(matches) != 1 {
		tb.Fatalf("rollout of %s: found %v", id, matches)
	}
	return matches[0]
}

// Run runs the client with args in the home's working directory and returns
// its standard output.
func (h *Home) Run(tb testing.TB, bin string, args ...string) []byte {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = h.Cwd
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.Home, "CODEX_HOME=" + h.CodexHome,
		"FAKE_KEY=sk-test", "LANG=C.UTF-8", "TZ=UTC", "TERM=dumb", "NO_COLOR=1"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("codex %v: %v\nstdout: %s\nstderr: %s", args, err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}
