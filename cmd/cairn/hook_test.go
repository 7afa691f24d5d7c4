package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"cairn"
	"cairn/workspace"
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

// TestWriteFullContext_Concurrent: SessionStarts of one session at once
// (a session resumed in two terminals) each write the full context; every
// one succeeds, the file is one of them whole, and no temporary file is
// left behind.
func TestWriteFullContext_Concurrent(t *testing.T) {
	w := workspace.New(t.TempDir())
	texts := make([]string, 8)
	errs := make([]error, len(texts))
	var wg sync.WaitGroup
	for i := range texts {
		texts[i] = strings.Repeat(string(rune('a'+i)), 200_000)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = writeFullContext(w, "0d0d0d0d-0000-4000-8000-000000000001", texts[i])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	dir := filepath.Join(w.Root, workspace.Dir, "context")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "0d0d0d0d-0000-4000-8000-000000000001.xml" {
		t.Fatalf("context folder holds %v, want the one file", entries)
	}
	if info, err := entries[0].Info(); err != nil {
		t.Error(err)
	} else if info.Mode().Perm() != 0o644 {
		t.Errorf("the file's mode is %v, want -rw-r--r--", info.Mode())
	}
	got, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	if err != nil || !slices.Contains(texts, string(got)) {
		t.Errorf("the file is none of the texts whole (%d bytes, %v)", len(got), err)
	}
}
