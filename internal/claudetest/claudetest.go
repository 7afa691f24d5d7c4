// Package claudetest runs the real Claude Code client in tests: offline,
// against a stand-in Messages API on loopback ([fakeapi]), with a scratch
// HOME.
//
// cairn supports a range of client releases, named in versions.env: the
// oldest supported and the newest tested. [Clients] returns both, so each
// real-client test runs on both ends: the newest is $CAIRN_CLAUDE, the
// oldest $CAIRN_CLAUDE_OLDEST (install.sh installs each into its own
// prefix, checks its version and prints the line to export). A detail only
// some releases write is asserted behind [Client.AtLeast], so the marking
// is in the test.
//
// Outside CI a missing binary skips the test with a loud reason; in CI
// (CI=true) it fails it, as does a binary of another release than the one
// its variable names.
package claudetest

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/bench"
)

//go:embed versions.env
var versionsEnv string

// Oldest and Newest are the supported range of Claude Code releases:
// the oldest supported and the newest tested (versions.env).
var Oldest, Newest = versionOf("CLAUDE_OLDEST"), versionOf("CLAUDE_NEWEST")

func versionOf(key string) string {
	sc := bufio.NewScanner(strings.NewReader(versionsEnv))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "="); ok && k == key {
			return v
		}
	}
	panic("claudetest: versions.env has no " + key)
}

// DefaultBinary is where install.sh installs a release when CC_PREFIX is
// not set.
func DefaultBinary(version string) string {
	return "/tmp/cairn-claude/" + version + "/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
}

// A Client is one installed release of the real client.
type Client struct {
	Name    string // "newest" or "oldest": the subtest's name
	Version string // what the binary's --version printed, e.g. "2.1.330"
	Path    string
}

// AtLeast reports whether the client is release v or later. Tests use it to
// mark an assertion on something only newer releases write.
func (c Client) AtLeast(v string) bool { return compareVersions(c.Version, v) >= 0 }

// Clients returns the releases every real-client test runs on: the newest
// tested ($CAIRN_CLAUDE) and the oldest supported ($CAIRN_CLAUDE_OLDEST).
// A missing one is left out with a loud log line, and if none is left the
// test skips; in CI a missing or mislabelled binary fails the test.
func Clients(tb testing.TB) []Client {
	tb.Helper()
	ci := os.Getenv("CI") == "true" || os.Getenv("CI") == "1"
	var out []Client
	for _, want := range []struct{ name, env, version string }{
		{"newest", "CAIRN_CLAUDE", Newest},
		{"oldest", "CAIRN_CLAUDE_OLDEST", Oldest},
	} {
		path := os.Getenv(want.env)
		if path == "" {
			path = DefaultBinary(want.version)
		}
		version, err := binaryVersion(path)
		switch {
		case err != nil:
			msg := fmt.Sprintf("REAL-CLIENT END-TO-END TEST NOT RUN on the %s release (%s): %v; run "+
				"`eval \"$(internal/claudetest/install.sh %s %s)\"` and test again", want.name, want.version, err, want.version, want.env)
			if ci {
				tb.Fatal(msg)
			}
			tb.Log(msg)
			continue
		case version != want.version:
			msg := fmt.Sprintf("%s=%s is claude %s, not the %s release %s (versions.env)", want.env, path, version, want.name, want.version)
			if ci {
				tb.Fatal(msg)
			}
			tb.Log("NOTE: " + msg)
		}
		out = append(out, Client{Name: want.name, Version: version, Path: path})
	}
	if len(out) == 0 {
		tb.Skip("REAL-CLIENT END-TO-END TEST NOT RUN: no Claude Code binary (see the lines above)")
	}
	return out
}

// Binary returns the newest tested release's binary, or skips (fails in
// CI) the test. Prefer [Clients], which also runs the oldest supported.
func Binary(tb testing.TB) string {
	tb.Helper()
	cs := Clients(tb)
	if cs[0].Name != "newest" {
		msg := "REAL-CLIENT END-TO-END TEST NOT RUN: no newest release at $CAIRN_CLAUDE"
		tb.Skip(msg)
	}
	return cs[0].Path
}

// binaryVersion runs path --version and returns the release it names.
func binaryVersion(path string) (string, error) {
	if info, err := os.Stat(path); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("no Claude Code binary at %s", path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The client makes ~/.claude even to print its version: a home of
	// its own, not /tmp, where it would be every test's.
	home, err := os.MkdirTemp("", "claude-version-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "DISABLE_AUTOUPDATER=1"}
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", path, err)
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if compareVersions(v, "0") <= 0 {
		return "", fmt.Errorf("%s --version printed %q, no version", path, out)
	}
	return v, nil
}

// compareVersions compares dotted release numbers ("2.1.197" < "2.1.330").
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
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

// A Result is what `claude -p --output-format json` printed (its last
// line, with stream-json).
type Result struct {
	SessionID string `json:"session_id"`
	IsError   bool   `json:"is_error"`
	Result    string `json:"result"`
	Subtype   string `json:"subtype"`
	// Stdout is all the client printed: with --output-format stream-json
	// --verbose, one event a line, what the person is shown among them.
	Stdout []byte `json:"-"`
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
	if !slices.Contains(args, "--output-format") {
		args = append(args, "--output-format", "json")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
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
	r.Stdout = stdout.Bytes()
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
		cairnBin.err = bench.BuildCairn(cairnBin.path)
	})
	if cairnBin.err != nil {
		tb.Fatal(cairnBin.err)
	}
	return cairnBin.path
}
