// Package pitest runs the real pi coding agent in tests: offline, against
// the stand-in Anthropic Messages API on loopback ([fakeapi.Server]) as a
// custom provider ("fake", model "fake-model", api anthropic-messages) in
// the scratch home's ~/.pi/agent/models.json. Two releases are run, the
// newest tested and the oldest supported; .ci/setup-pi.sh installs both
// and exports CAIRN_PI and CAIRN_PI_OLDEST.
//
// Outside CI a missing binary skips the test with a loud reason; in CI
// (CI=true) it fails it, as does a binary of another release.
package pitest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// The releases the tests run: the newest tested, whose sessions are format
// version 3, and the oldest supported, the last that writes version 1 (no
// entry ids; the newest migrates such a file to 3 when it opens it).
const (
	Newest = "0.73.1"
	Oldest = "0.27.9"
)

// A Client is one installed release.
type Client struct {
	Name    string // newest | oldest
	Version string
	Bin     string
}

// Binary returns the path .ci/setup-pi.sh installs a release at.
func Binary(version string) string {
	return "/tmp/pi/" + version + "/node_modules/.bin/pi"
}

// Package returns the folder of a release's package (its dist/ and docs/).
func (c Client) Package() string {
	return filepath.Join(filepath.Dir(filepath.Dir(c.Bin)), "@mariozechner", "pi-coding-agent")
}

// Clients returns both releases, or skips (fails in CI) the test when one
// is missing or reports another version.
func Clients(tb testing.TB) []Client {
	tb.Helper()
	return []Client{client(tb, "newest", Newest, "CAIRN_PI"), client(tb, "oldest", Oldest, "CAIRN_PI_OLDEST")}
}

// NewestClient returns the newest release, or skips (fails in CI).
func NewestClient(tb testing.TB) Client {
	tb.Helper()
	return client(tb, "newest", Newest, "CAIRN_PI")
}

func client(tb testing.TB, name, version, env string) Client {
	tb.Helper()
	path := os.Getenv(env)
	if path == "" {
		path = Binary(version)
	}
	msg := ""
	if info, err := os.Stat(path); err != nil || info.IsDir() {
		msg = "no pi binary at " + path
	} else if v := versionOf(path); v != version {
		msg = fmt.Sprintf("pi at %s is %q, want %s", path, v, version)
	}
	if msg == "" {
		return Client{Name: name, Version: version, Bin: path}
	}
	msg = "REAL-CLIENT END-TO-END TEST NOT RUN: " + msg + "; run `source .ci/setup-pi.sh` (sets " + env + ") and test again"
	if ci := os.Getenv("CI"); ci == "true" || ci == "1" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return Client{}
}

// versionOf runs `pi --version` in a scratch home (pi makes ~/.pi/agent
// when it starts); 0.73.1 prints the version on standard error.
func versionOf(bin string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	home, err := os.MkdirTemp("", "pitest-version")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return ""
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// A Home is a scratch pi installation: HOME with .pi/agent/models.json
// sending the client to the stand-in, and a working directory.
type Home struct {
	Root, Cwd string
	Env       []string // more of the client's environment (NAME=value)
}

// Agent is pi's folder under the home.
func (h *Home) Agent() string { return filepath.Join(h.Root, ".pi", "agent") }

// SessionsDir is the folder pi writes the working directory's sessions to:
// sessions/--<cwd, its separators dashes>--/.
func (h *Home) SessionsDir() string {
	return filepath.Join(h.Agent(), "sessions", "--"+strings.ReplaceAll(strings.TrimPrefix(h.Cwd, "/"), "/", "-")+"--")
}

// ModelsJSON is the models.json of a scratch home: one custom provider at
// baseURL speaking the Anthropic Messages API. Every model field is given,
// as 0.27.9's schema requires.
func ModelsJSON(baseURL string) string {
	return fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"anthropic-messages","apiKey":"sk-test","models":[{"id":"fake-model","name":"Fake","reasoning":false,"input":["text"],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":200000,"maxTokens":8000}]}}}
`, baseURL)
}

// NewHome makes a scratch home whose client talks to baseURL (the
// stand-in's URL).
func NewHome(tb testing.TB, baseURL string) *Home {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	h := &Home{Root: root, Cwd: filepath.Join(root, "work")}
	for _, d := range []string{h.Agent(), h.Cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(h.Agent(), "models.json"), []byte(ModelsJSON(baseURL)), 0o644); err != nil {
		tb.Fatal(err)
	}
	return h
}

// Environ is the client's environment: nothing of the real one but PATH,
// offline (PI_OFFLINE), then h.Env.
func (h *Home) Environ() []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.Root, "PI_OFFLINE=1",
		"LANG=C.UTF-8", "TZ=UTC", "TERM=dumb", "NO_COLOR=1"}, h.Env...)
}

// Run runs `pi --provider fake --model fake-model -p PROMPT ARGS…` in the
// working directory and returns its output.
func (h *Home) Run(tb testing.TB, bin, prompt string, args ...string) []byte {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append([]string{"--provider", "fake", "--model", "fake-model"}, args...), "-p", prompt)...)
	cmd.Dir, cmd.Env = h.Cwd, h.Environ()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tb.Fatalf("pi -p %q %v: %v\n%s", prompt, args, err, out.Bytes())
	}
	return out.Bytes()
}

// Node runs a script with node in the working directory (the client's own
// modules, such as its SessionManager, imported by path) and returns its
// output.
func (h *Home) Node(tb testing.TB, script string) []byte {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "--input-type=module", "-e", script)
	cmd.Dir, cmd.Env = h.Cwd, h.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("node: %v\n%s", err, out)
	}
	return out
}

// Sessions returns the session files of the working directory, by name
// (their names begin with the time they were made).
func (h *Home) Sessions(tb testing.TB) []string {
	tb.Helper()
	m, _ := filepath.Glob(filepath.Join(h.SessionsDir(), "*.jsonl"))
	sort.Strings(m)
	return m
}
