// Package claudetest runs the real Claude Code client in tests: offline,
// against a stand-in Messages API on loopback ([fakeapi]), with a scratch
// HOME. The binary is $CAIRN_CLAUDE (install.sh installs it and prints the
// line to export), else the one install.sh puts under /tmp/cc.
//
// Outside CI a missing binary skips the test with a loud reason; in CI
// (CI=true) it fails it.
package claudetest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// DefaultBinary is where install.sh installs the native client.
const DefaultBinary = "/tmp/cc/node_modules/@anthropic-ai/claude-code-linux-x64/claude"

// Binary returns the client to run, or skips (fails in CI) the test.
func Binary(tb testing.TB) string {
	tb.Helper()
	path := os.Getenv("CAIRN_CLAUDE")
	if path == "" {
		path = DefaultBinary
	}
	if info, err := os.Stat(path); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
		return path
	}
	msg := "REAL-CLIENT END-TO-END TEST NOT RUN: no Claude Code binary at " + path +
		"; run `eval \"$(internal/claudetest/install.sh)\"` (sets CAIRN_CLAUDE) and test again"
	if ci := os.Getenv("CI"); ci == "true" || ci == "1" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return ""
}

// Versions returns the clients a test runs on, by name: "newest" is
// [Binary]; "oldest" is $CAIRN_CLAUDE_OLDEST when it names another
// executable (.ci/setup-claude.sh exports both), so a test
// of a behaviour the client must offer checks both ends of the range.
func Versions(tb testing.TB) map[string]string {
	tb.Helper()
	v := map[string]string{"newest": Binary(tb)}
	if old := os.Getenv("CAIRN_CLAUDE_OLDEST"); old != "" && old != v["newest"] {
		if info, err := os.Stat(old); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			v["oldest"] = old
		} else {
			tb.Errorf("CAIRN_CLAUDE_OLDEST=%s is not an executable", old)
		}
	}
	return v
}

// A Result is what `claude -p --output-format json` printed.
type Result struct {
	SessionID string `json:"session_id"`
	IsError   bool   `json:"is_error"`
	Result    string `json:"result"`
	Subtype   string `json:"subtype"`
}

// Run runs the client in cwd with a scratch home, against the API at
// baseURL, and returns its JSON result. Nothing of the real environment
// but PATH reaches it.
func Run(tb testing.TB, bin, home, cwd, baseURL string, args ...string) *Result {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--output-format", "json")...)
	cmd.Dir = cwd
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "TZ=UTC", "TERM=dumb",
		"ANTHROPIC_BASE_URL=" + baseURL, "ANTHROPIC_API_KEY=sk-test",
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &stdout, &stderr, nil
	if err := cmd.Run(); err != nil {
		tb.Fatalf("claude %v: %v\nstdout: %s\nstderr: %s", args, err, stdout.Bytes(), stderr.Bytes())
	}
	var r Result
	if err := json.Unmarshal(bytes.TrimSpace(lastLine(stdout.Bytes())), &r); err != nil {
		tb.Fatalf("claude %v: output %q: %v\nstderr: %s", args, stdout.Bytes(), err, stderr.Bytes())
	}
	return &r
}

func lastLine(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}

// ScratchDir returns a temporary folder with symlinks resolved, as the
// client records its cwd.
func ScratchDir(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}
