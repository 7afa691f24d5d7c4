package cli

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestHookExitCode pins that a failing hook exits 1, which Claude Code
// reports and carries on from, and never 2, which blocks the agent.
func TestHookExitCode(t *testing.T) {
	for _, c := range []struct {
		name, stdin string
		args        []string
		want        int
	}{
		{"OK", `{"session_id":"s","hook_event_name":"SessionStart"}`, []string{"hook", "SessionStart"}, 0},
		{"ErrBrokenInput", `{"session_id":`, []string{"hook", "Stop"}, 1},
		{"ErrEmptyInput", "", []string{"hook", "SessionStart"}, 1},
		{"ErrUnknownEvent", "{}", []string{"hook", "Bogus"}, 1},
		{"ErrNoEvent", "{}", []string{"hook"}, 1},
		{"ErrBadFlag", "{}", []string{"hook", "--bogus", "Stop"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			m := NewMain(strings.NewReader(c.stdin), &stdout, &stderr)
			m.Getenv = func(string) string { return "" }
			m.Getwd = func() (string, error) { return t.TempDir(), nil }
			err := m.Run(context.Background(), c.args)
			got := 0
			if err != nil {
				got = exitCode(err)
			}
			if got != c.want {
				t.Fatalf("exit code %d, want %d (err %v)", got, c.want, err)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
		})
	}
}

// TestHookStoreShared: the steps of one hook share its store, whose Close
// leaves it open; another store is the caller's own; runHook closes the
// shared one.
func TestHookStoreShared(t *testing.T) {
	dir := t.TempDir()
	own, other := filepath.Join(dir, "own.db"), filepath.Join(dir, "other.db")
	m := NewMain(strings.NewReader(""), io.Discard, io.Discard)
	m.Getenv = func(k string) string {
		if k == "CAIRN_STORE" {
			return own
		}
		return ""
	}
	m.inHook = true
	a, err := m.openStore("")
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	b, err := m.openStore("")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.sessions.FindSessions(context.Background(), cairn.SessionFilter{}); err != nil {
		t.Fatalf("the hook's store was closed by a step that borrowed it: %v", err)
	}
	c, err := m.openStore(other)
	if err != nil {
		t.Fatal(err)
	}
	if m.hookStoreAt != own {
		t.Fatalf("the hook's store is %q, want %q", m.hookStoreAt, own)
	}
	c.Close()
	if _, _, err := c.sessions.FindSessions(context.Background(), cairn.SessionFilter{}); err == nil {
		t.Fatal("a store other than the hook's stayed open after its Close")
	}
	m.hookStore.Close()
}
