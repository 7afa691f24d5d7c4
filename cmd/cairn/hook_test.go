package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
