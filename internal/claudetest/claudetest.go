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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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
	return RunEnv(tb, nil, bin, home, cwd, baseURL, args...)
}

// RunEnv is [Run] with more environment variables (NAME=value), such as
// CLAUDE_CODE_AUTO_COMPACT_WINDOW.
func RunEnv(tb testing.TB, env []string, bin, home, cwd, baseURL string, args ...string) *Result {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--output-format", "json")...)
	cmd.Dir = cwd
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "TZ=UTC", "TERM=dumb",
		"ANTHROPIC_BASE_URL=" + baseURL, "ANTHROPIC_API_KEY=sk-test",
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
	}
	cmd.Env = append(cmd.Env, env...)
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

// A Client is one Claude Code binary to run end-to-end tests with.
type Client struct {
	Name string // the variable that named it: CAIRN_CLAUDE or CAIRN_CLAUDE_OLDEST
	Path string
}

// Clients returns the clients to test with: $CAIRN_CLAUDE (or
// [DefaultBinary]) and, when set, $CAIRN_CLAUDE_OLDEST, the oldest version
// cairn supports. Without the first it skips the test (fails it in CI);
// a $CAIRN_CLAUDE_OLDEST that names no executable fails it.
func Clients(tb testing.TB) []Client {
	tb.Helper()
	out := []Client{{"CAIRN_CLAUDE", Binary(tb)}}
	if old := os.Getenv("CAIRN_CLAUDE_OLDEST"); old != "" {
		if info, err := os.Stat(old); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			tb.Fatalf("CAIRN_CLAUDE_OLDEST=%s is not an executable file", old)
		}
		if old != out[0].Path {
			out = append(out, Client{"CAIRN_CLAUDE_OLDEST", old})
		}
	}
	return out
}

// Version returns what `claude --version` prints first, e.g. "2.1.330".
func Version(tb testing.TB, bin string) string {
	tb.Helper()
	cmd := exec.Command(bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tb.TempDir(), "DISABLE_AUTOUPDATER=1"}
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("%s --version: %v", bin, err)
	}
	f := bytes.Fields(out)
	if len(f) == 0 {
		tb.Fatalf("%s --version printed nothing", bin)
	}
	return string(f[0])
}

var cairnBin struct {
	once sync.Once
	path string
	err  error
}

// Cairn builds the cairn command once per test binary and returns its path:
// end-to-end tests drive the product as users do.
func Cairn(tb testing.TB) string {
	tb.Helper()
	cairnBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-e2e-bin-")
		if err != nil {
			cairnBin.err = err
			return
		}
		cairnBin.path = filepath.Join(dir, "cairn")
		out, err := exec.Command("go", "build", "-o", cairnBin.path, "cairn/cmd/cairn").CombinedOutput()
		if err != nil {
			cairnBin.err = fmt.Errorf("go build cairn/cmd/cairn: %v\n%s", err, out)
		}
	})
	if cairnBin.err != nil {
		tb.Fatal(cairnBin.err)
	}
	return cairnBin.path
}
