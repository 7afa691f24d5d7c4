package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPopInOnePrompt (issue 42, 2a): the agent pushes a frame, writes a
// file, runs the tests and pops inside one prompt's work, before any hook
// has stored the round. cairn pop reads the round in progress from the
// session's transcript, drafts the results from the steps between the
// push and the pop (the file written, the check and the last answer, not
// the prompt's work before the push) and, since those steps hold more
// than a quarter of what the client holds, says so with the command that
// collapses them; when they hold less, it says nothing of a collapse.
func TestPopInOnePrompt(t *testing.T) {
	out, stderr, tree := popInOnePrompt(t, 8000)
	if !strings.Contains(out, "popped parser Parser") {
		t.Fatalf("cairn pop printed:\n%s", out)
	}
	if !strings.Contains(stderr, "Results drafted from 1 round of frame parser") {
		t.Errorf("cairn pop's stderr:\n%s", stderr)
	}
	want := "The finished frames (parser) hold 35% of the context (~2,882 of 8,030 tokens, in 4 steps): when this turn ends, cairn prepares a revived session of 5f0c2a1e-0000-4000-8000-0000000000b3 with them collapsed to their results and shows the person the command that resumes it (you are told it too, at the next prompt). Only the person can switch to it; there is nothing for you to run.\n"
	if !strings.Contains(out, want) {
		t.Errorf("cairn pop does not name the collapse:\n%s\nwant %s", out, want)
	}
	for _, s := range []string{`"parser.go"`, "go test ./parser", "The parser is in and its tests pass.", "I went with a hand-written parser rather than a generator."} {
		if !strings.Contains(tree, s) {
			t.Errorf("the drafted results lack %q:\n%s", s, tree)
		}
	}
	if strings.Contains(tree, "BEFORE-PUSH") {
		t.Errorf("the draft holds a step from before the push:\n%s", tree)
	}

	out, _, tree = popInOnePrompt(t, 80000)
	if !strings.Contains(out, "popped parser Parser") || strings.Contains(out, "compress-frames") || !strings.Contains(tree, "go test ./parser") {
		t.Errorf("a frame holding 3%% of the context: cairn pop printed\n%s", out)
	}
}

// popInOnePrompt pushes and pops frame parser inside one prompt of a
// Claude Code session whose client holds held tokens, and returns what
// cairn pop printed and cairn tree --json.
func popInOnePrompt(t *testing.T, held int) (out, stderr, tree string) {
	t.Helper()
	const session = "5f0c2a1e-0000-4000-8000-0000000000b3"
	work := t.TempDir()
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "projects", "-w")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, session+".jsonl")
	env := map[string]string{"HOME": home, "CLAUDE_CODE_SESSION_ID": session}
	cairn := func(args ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		m := NewMain(strings.NewReader(""), &out, &errb)
		m.Getenv = func(k string) string { return env[k] }
		m.Getwd = func() (string, error) { return work, nil }
		if err := m.Run(context.Background(), args); err != nil {
			t.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, errb.String())
		}
		return out.String(), errb.String()
	}
	n := 0
	line := func(at time.Time, msg map[string]any) {
		n++
		kind := msg["role"].(string)
		b, err := json.Marshal(map[string]any{"type": kind, "sessionId": session, "uuid": uuidN(n), "parentUuid": uuidN(n - 1),
			"timestamp": at.UTC().Format(time.RFC3339Nano), "cwd": work, "message": msg})
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	usage := map[string]any{"input_tokens": held, "output_tokens": 10}
	call := func(at time.Time, id, tool string, input map[string]any) {
		line(at, map[string]any{"id": "msg_" + id, "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": tool, "input": input}}})
	}
	result := func(at time.Time, id, out string) {
		line(at, map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_" + id, "content": out}}})
	}

	cairn("init")
	before := time.Now().Add(-time.Minute)
	line(before, map[string]any{"role": "user", "content": "add the parser"})
	line(before.Add(time.Second), map[string]any{"id": "msg_p0", "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
		"content": []any{map[string]any{"type": "text", "text": "BEFORE-PUSH: I read the module first."}}})
	call(before.Add(2*time.Second), "p1", "Bash", map[string]any{"command": "cairn push Parser --criteria 'tests pass'"})
	cairn("push", "Parser", "--id", "parser", "--criteria", "tests pass")
	after := time.Now().Add(time.Millisecond)
	result(after, "p1", "pushed parser")
	call(after.Add(time.Millisecond), "p2", "Write", map[string]any{"file_path": filepath.Join(work, "parser.go"), "content": "package parser\n"})
	result(after.Add(2*time.Millisecond), "p2", "File created")
	call(after.Add(3*time.Millisecond), "p3", "Bash", map[string]any{"command": "go test ./parser"})
	result(after.Add(4*time.Millisecond), "p3", strings.Repeat("ok parser PLANTED-STEP-WORK\n", 400))
	line(after.Add(5*time.Millisecond), map[string]any{"id": "msg_p4", "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
		"content": []any{
			map[string]any{"type": "text", "text": "The parser is in and its tests pass. I went with a hand-written parser rather than a generator."},
			map[string]any{"type": "tool_use", "id": "toolu_p4", "name": "Bash", "input": map[string]any{"command": "cairn pop"}}}})

	out, stderr = cairn("pop")
	tree, _ = cairn("tree", "--json")
	return out, stderr, tree
}

// uuidN is the n'th line's uuid in a test transcript; nil for none.
func uuidN(n int) any {
	if n <= 0 {
		return nil
	}
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
}
