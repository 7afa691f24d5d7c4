// Package geminitest runs the real Gemini CLI in tests: offline, against a
// stand-in Gemini API on loopback ([fakeapi.Gemini], reached through
// GOOGLE_GEMINI_BASE_URL), with a scratch HOME whose settings pick the API
// key (GEMINI_API_KEY) and turn folder trust off. The binaries are
// $CAIRN_GEMINI (newest) and $CAIRN_GEMINI_OLDEST (.ci/setup-gemini.sh
// installs both and exports them), else the ones it puts under
// /tmp/gemini/VERSION.
//
// Outside CI a missing binary skips the test with a loud reason; in CI
// (CI=true) it fails it.
package geminitest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The supported range: the oldest release (its sessions are one .json
// document) and the newest tested (JSONL). .ci/setup-gemini.sh pins them.
const (
	Oldest = "0.30.0"
	Newest = "0.61.0"
)

// A Client is one installed release.
type Client struct {
	Name    string // "newest" or "oldest"
	Version string
	Bin     string
}

// DefaultBinary is where .ci/setup-gemini.sh installs a release.
func DefaultBinary(version string) string {
	return "/tmp/gemini/" + version + "/node_modules/.bin/gemini"
}

// Clients returns both ends of the supported range, skipping (failing in
// CI) the test when either is missing or reports another version.
func Clients(tb testing.TB) []Client {
	tb.Helper()
	return []Client{client(tb, "newest", Newest, "CAIRN_GEMINI"), client(tb, "oldest", Oldest, "CAIRN_GEMINI_OLDEST")}
}

// Newest returns the newest release, or skips (fails in CI).
func NewestClient(tb testing.TB) Client {
	tb.Helper()
	return client(tb, "newest", Newest, "CAIRN_GEMINI")
}

func client(tb testing.TB, name, version, env string) Client {
	tb.Helper()
	path := os.Getenv(env)
	if path == "" {
		path = DefaultBinary(version)
	}
	msg := ""
	if info, err := os.Stat(path); err != nil || info.IsDir() {
		msg = "no Gemini CLI binary at " + path
	} else if out, err := exec.Command(path, "--version").Output(); err != nil {
		msg = "Gemini CLI at " + path + " does not run: " + err.Error()
	} else if got := strings.TrimSpace(string(out)); got != version {
		msg = "Gemini CLI at " + path + " is " + got + ", not " + version
	}
	if msg == "" {
		return Client{Name: name, Version: version, Bin: path}
	}
	msg = "REAL-CLIENT END-TO-END TEST NOT RUN: " + msg + "; run `source .ci/setup-gemini.sh` (sets " + env + ") and test again"
	if ci := os.Getenv("CI"); ci == "true" || ci == "1" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return Client{}
}

// A Home is a scratch Gemini CLI installation: HOME with .gemini/settings.json,
// and a working directory.
type Home struct {
	Home, Gemini, Cwd string
	BaseURL           string   // the stand-in API
	Env               []string // more of the client's environment (NAME=value); PATH here replaces the real one
}

// Settings is the settings.json a scratch home starts with: the API key
// picked as the way in, folder trust off (an untrusted folder would turn
// --yolo off), no telemetry.
const Settings = `{"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}},"privacy":{"usageStatisticsEnabled":false}}
`

// NewHome makes a scratch home whose client talks to baseURL.
func NewHome(tb testing.TB, baseURL string) *Home {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	h := &Home{Home: root, Gemini: filepath.Join(root, ".gemini"), Cwd: filepath.Join(root, "work"), BaseURL: baseURL}
	for _, d := range []string{h.Gemini, h.Cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(h.Gemini, "settings.json"), []byte(Settings), 0o644); err != nil {
		tb.Fatal(err)
	}
	return h
}

// Environ is the client's environment: nothing of the real one but PATH,
// then h.Env.
func (h *Home) Environ() []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.Home, "GEMINI_API_KEY=test-key",
		"GOOGLE_GEMINI_BASE_URL=" + h.BaseURL, "LANG=C.UTF-8", "TZ=UTC", "TERM=dumb", "NO_COLOR=1", "CI=true"}, h.Env...)
}

// Run runs `gemini --yolo -p PROMPT ARGS…` in the working directory and
// returns its output.
func (h *Home) Run(tb testing.TB, bin, prompt string, args ...string) []byte {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--yolo", "-p", prompt}, args...)...)
	cmd.Dir, cmd.Env = h.Cwd, h.Environ()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tb.Fatalf("gemini -p %q %v: %v\n%s", prompt, args, err, out.Bytes())
	}
	return out.Bytes()
}

// Sessions returns the main session files the client wrote, oldest first.
func (h *Home) Sessions(tb testing.TB) []string {
	tb.Helper()
	var out []string
	for _, pat := range []string{"session-*.json", "session-*.jsonl"} {
		m, _ := filepath.Glob(filepath.Join(h.Gemini, "tmp", "*", "chats", pat))
		out = append(out, m...)
	}
	return out
}
