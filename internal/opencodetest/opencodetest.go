// Package opencodetest runs the real opencode client in tests: offline,
// against a stand-in Chat Completions API on loopback ([fakeapi.Chat])
// configured as an OpenAI-compatible provider, with scratch HOME and XDG
// folders. Two releases are run, the newest tested and the oldest
// supported (versions.go); .ci/setup-opencode.sh installs both and exports
// CAIRN_OPENCODE and CAIRN_OPENCODE_OLDEST.
//
// Outside CI a missing binary skips the test with a loud reason; in CI
// (CI=true) it fails it, as does a binary of another release.
package opencodetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The releases the tests run: the newest tested, which keeps sessions in
// opencode.db (SQLite), and the oldest supported, the last that keeps them
// as JSON files under storage/.
const (
	Newest = "1.18.33"
	Oldest = "1.1.65"
)

// A Client is one installed release.
type Client struct {
	Name    string // newest | oldest
	Version string
	Bin     string
}

// Binary returns the path .ci/setup-opencode.sh installs a release at.
func Binary(version string) string {
	return "/tmp/opencode/" + version + "/node_modules/opencode-linux-x64/bin/opencode"
}

// Clients returns both releases, or skips (fails in CI) the test when one
// is missing or reports another version.
func Clients(tb testing.TB) []Client {
	tb.Helper()
	var out []Client
	for _, c := range []struct{ name, env, version string }{{"newest", "CAIRN_OPENCODE", Newest}, {"oldest", "CAIRN_OPENCODE_OLDEST", Oldest}} {
		path := os.Getenv(c.env)
		if path == "" {
			path = Binary(c.version)
		}
		msg := ""
		if info, err := os.Stat(path); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			msg = "no opencode binary at " + path
		} else if v := version(path); v != c.version {
			msg = fmt.Sprintf("opencode at %s is %q, want %s", path, v, c.version)
		}
		if msg != "" {
			msg = "REAL-CLIENT END-TO-END TEST NOT RUN: " + msg + "; run `source .ci/setup-opencode.sh` (sets " + c.env + ") and test again"
			if ci := os.Getenv("CI"); ci == "true" || ci == "1" {
				tb.Fatal(msg)
			}
			tb.Skip(msg)
		}
		out = append(out, Client{Name: c.name, Version: c.version, Bin: path})
	}
	return out
}

func version(bin string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// A Home is a scratch opencode installation: HOME and XDG folders, a
// config sending the client to the stand-in, and a working directory.
type Home struct {
	Root, Cwd string
}

// DataDir is opencode's data folder under the home.
func (h *Home) DataDir() string { return filepath.Join(h.Root, "data", "opencode") }

// NewHome makes a scratch home whose config sends opencode to baseURL (the
// stand-in's URL, without /v1) as provider "fake", model "fake-model".
func NewHome(tb testing.TB, baseURL string) *Home {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	h := &Home{Root: root, Cwd: filepath.Join(root, "work")}
	conf := filepath.Join(root, "config", "opencode")
	for _, d := range []string{h.Cwd, conf} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	config := fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
    "options": {"baseURL": %q, "apiKey": "sk-test"},
    "models": {"fake-model": {"name": "Fake Model", "limit": {"context": 200000, "output": 8000}}}}},
  "model": "fake/fake-model"
}
`, baseURL+"/v1")
	if err := os.WriteFile(filepath.Join(conf, "opencode.json"), []byte(config), 0o644); err != nil {
		tb.Fatal(err)
	}
	return h
}

// Env is the environment the client runs with: nothing of the real one but
// PATH.
func (h *Home) Env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.Root,
		"XDG_DATA_HOME=" + filepath.Join(h.Root, "data"), "XDG_CONFIG_HOME=" + filepath.Join(h.Root, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(h.Root, "cache"), "XDG_STATE_HOME=" + filepath.Join(h.Root, "state"),
		"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "LANG=C.UTF-8", "TZ=UTC", "TERM=dumb", "NO_COLOR=1"}
}

// Run runs the client with args in the home's working directory and
// returns its standard output.
func (h *Home) Run(tb testing.TB, bin string, args ...string) []byte {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = h.Cwd
	cmd.Env = h.Env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &stdout, &stderr, nil
	if err := cmd.Run(); err != nil {
		tb.Fatalf("opencode %v: %v\nstdout: %s\nstderr: %s", args, err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}
