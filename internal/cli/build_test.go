package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/bench"
)

// TestNeedsFull: the invocations the lean build hands to cairn-full.
func TestNeedsFull(t *testing.T) {
	for _, c := range []struct {
		args  string
		store string
		want  bool
	}{
		{"mcp", "", true},
		{"serve --addr 127.0.0.1:0", "", true},
		{"help serve", "", false}, // Run turns it into "serve -h" first
		{"eval retention S --model claude-x", "", true},
		{"eval retention S --model=claude-x", "", true},
		{"eval retention S", "", false},
		{"search model", "", false},
		{"sessions --store postgres://u@h/db", "", true},
		{"sessions --store=postgresql://u@h/db", "", true},
		{"migrate --to postgres://u@h/db", "", true},
		{"hook SessionStart", "postgres://u@h/db", true},
		{"hook SessionStart", "/tmp/x.db", false},
		{"import", "", false},
		{"", "", false},
	} {
		got := needsFull(strings.Fields(c.args), func(k string) string {
			if k == "CAIRN_STORE" {
				return c.store
			}
			return ""
		})
		if got != c.want {
			t.Errorf("needsFull(%q, CAIRN_STORE=%q) = %v, want %v", c.args, c.store, got, c.want)
		}
	}
}

// TestLeanHandOff builds cairn as the README installs it, the lean build
// and cairn-full beside it, and checks the lean one does its own work and
// hands the rest over: the same output as cairn-full's for mcp, serve and
// a PostgreSQL store, a message naming the build command when cairn-full
// is missing, and no loop when cairn-full is a lean build too.
func TestLeanHandOff(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cairn twice")
	}
	dir := t.TempDir()
	lean, full := filepath.Join(dir, "cairn"), filepath.Join(dir, "cairn-full")
	if err := bench.BuildCairn(lean); err != nil {
		t.Fatal(err)
	}
	run := func(bin string, env []string, args ...string) (string, int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hand-off loop would never end
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), append([]string{"CAIRN_FULL=", "CAIRN_STORE=", "CAIRN_HANDOFF=", "PATH=/usr/bin:/bin"}, env...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), code
	}
	pg := "postgres://cairn@127.0.0.1:1/none?sslmode=disable"
	for _, args := range [][]string{{"mcp", "-h"}, {"serve", "-h"}, {"help", "mcp"}, {"sessions", "--store", pg}} {
		want, wantCode := run(full, nil, args...)
		got, code := run(lean, nil, args...)
		if got != want || code != wantCode {
			t.Errorf("lean cairn %v: exit %d\n%s\nwant cairn-full's, exit %d\n%s", args, code, got, wantCode, want)
		}
	}
	if got, code := run(lean, []string{"CAIRN_STORE=" + pg}, "sessions"); code != 1 || !strings.Contains(got, "PostgreSQL store") {
		t.Errorf("lean cairn sessions, CAIRN_STORE a PostgreSQL URL: exit %d, %s", code, got)
	}
	if got, code := run(lean, nil, "sessions", "--store", filepath.Join(dir, "x.db")); code != 1 || !strings.Contains(got, "No store at") {
		t.Errorf("lean cairn on its own store: exit %d, %s", code, got)
	}

	alone := filepath.Join(t.TempDir(), "cairn")
	if b, err := os.ReadFile(lean); err != nil || os.WriteFile(alone, b, 0o755) != nil {
		t.Fatal(err)
	}
	got, code := run(alone, nil, "serve")
	if code != 1 || !strings.Contains(got, "needs cairn-full") || !strings.Contains(got, "GOBIN="+filepath.Dir(alone)+" go install github.com/cairn-dev/cairn/cmd/cairn-full@latest") {
		t.Errorf("lean cairn without cairn-full: exit %d, %s", code, got)
	}
	if got, code := run(alone, []string{"CAIRN_FULL=" + full}, "mcp", "-h"); code != 0 || !strings.Contains(got, "Model Context Protocol") {
		t.Errorf("lean cairn with $CAIRN_FULL: exit %d, %s", code, got)
	}
	if got, code := run(alone, []string{"CAIRN_FULL=" + alone}, "mcp"); code != 1 || !strings.Contains(got, "lean build too") {
		t.Errorf("cairn-full a lean build: exit %d, %s", code, got)
	}
}

// TestLeanInit: what cairn's own packages do before main, in the lean
// build, stays small. Every command pays for it, --help and each hook
// included, so a package-level map literal or fmt call belongs in a
// function, called when needed. The bound is on bytes allocated, which
// GODEBUG=inittrace=1 counts exactly: 3,888 bytes here, against 13,264
// when sets of names were map literals and two sentinel errors and a
// footer were formatted at start.
func TestLeanInit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cairn")
	}
	bin := filepath.Join(t.TempDir(), "cairn")
	build := exec.Command("go", "build", "-tags", "lean", "-o", bin, "../../cmd/cairn")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace bytes.Buffer
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	const limit = 8 << 10
	total, seen := 0, 0
	var mine []string
	for _, line := range strings.Split(trace.String(), "\n") {
		// init github.com/cairn-dev/cairn/workspace @7.0 ms, 0.36 ms clock, 1728 bytes, 31 allocs
		f := strings.Fields(line)
		const module = "github.com/cairn-dev/cairn"
		if len(f) < 11 || f[0] != "init" || (f[1] != "main" && f[1] != module && !strings.HasPrefix(f[1], module+"/")) {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil || f[8] != "bytes," {
			t.Fatalf("unexpected inittrace line %q", line)
		}
		total += n
		seen++
		mine = append(mine, line)
	}
	if seen == 0 {
		t.Fatalf("no init line of cairn's packages in:\n%s", trace.String())
	}
	if total > limit {
		t.Errorf("cairn's packages allocate %d bytes before main, over %d: move package-level maps and formatting into functions\n%s", total, limit, strings.Join(mine, "\n"))
	}
}

// TestFullFile: the lean build looks beside itself for cairn-full.exe on
// Windows, where a release archive puts it, and cairn-full elsewhere.
func TestFullFile(t *testing.T) {
	for goos, want := range map[string]string{"windows": "cairn-full.exe", "linux": "cairn-full", "darwin": "cairn-full"} {
		if got := fullFile(goos); got != want {
			t.Errorf("fullFile(%s) = %q, want %q", goos, got, want)
		}
	}
}
