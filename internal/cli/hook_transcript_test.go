package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHookTranscriptNotRegular: a hook whose transcript_path is a FIFO,
// a device or a link to one returns at once (it used to wait forever for
// a writer), exits 0 or 1, never 2, names the path on stderr when it
// fails, and prints nothing on stdout; the status line too.
func TestHookTranscriptNotRegular(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	var out, errb bytes.Buffer
	if err := hookMain(ws, home, "", &out, &errb).Run(context.Background(), []string{"init"}); err != nil {
		t.Fatal(err, errb.String())
	}
	projects := filepath.Join(home, ".claude", "projects", "-w")
	if err := os.MkdirAll(projects, 0o755); err != nil {
		t.Fatal(err)
	}
	id := "0d0d0d0d-0000-4000-8000-0000000000f1"
	fifo := filepath.Join(projects, id+".jsonl")
	if err := makeFIFO(fifo); err != nil {
		t.Skip(err)
	}
	zero := filepath.Join(projects, "0d0d0d0d-0000-4000-8000-0000000000f2.jsonl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct{ path, want string }{
		{fifo, "a named pipe, not a regular file"},
		{zero, "a link to /dev/zero, not under a transcript folder"},
		{"/dev/zero", "not under a transcript folder"},
	} {
		for _, args := range [][]string{
			{"hook", "Stop"}, {"hook", "UserPromptSubmit"}, {"hook", "PostToolUse"}, {"hook", "PostToolUseFailure"},
			{"hook", "PreCompact"}, {"hook", "SessionEnd"}, {"statusline"},
		} {
			name := filepath.Base(c.path) + "/" + args[len(args)-1]
			t.Run(name, func(t *testing.T) {
				var out, errb bytes.Buffer
				stdin := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":%q,"prompt":"go on","trigger":"auto","tool_name":"Write"}`,
					id, c.path, ws, args[len(args)-1])
				done := make(chan error, 1)
				go func() { done <- hookMain(ws, home, stdin, &out, &errb).Run(context.Background(), args) }()
				var err error
				select {
				case err = <-done:
				case <-time.After(30 * time.Second): // a FIFO's reader waits forever; a loaded machine's delays do not come near
					t.Fatalf("%v still running after 30 s: it waits on %s", args, c.path)
				}
				if args[0] == "statusline" {
					if err != nil || strings.Contains(out.String(), "ctx") {
						t.Fatalf("statusline: %q, %v", out.String(), err)
					}
					return
				}
				if err != nil && exitCode(err) != 1 {
					t.Fatalf("exit code %d, want 0 or 1: %v", exitCode(err), err)
				}
				if err != nil && (!strings.Contains(errorText(err), c.path) || !strings.Contains(errorText(err), c.want)) {
					t.Fatalf("the failure does not name %s (%s): %v", c.path, c.want, errorText(err))
				}
				if out.Len() > 0 {
					t.Fatalf("stdout %q, want nothing", out.String())
				}
			})
		}
	}
}

// TestHookSubagentLinkOutside: a sub-agent transcript that is a link out
// of the transcript folders is not stored; the hook names it on stderr,
// inscribes the session and exits 0.
func TestHookSubagentLinkOutside(t *testing.T) {
	ws, home, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	var out, errb bytes.Buffer
	if err := hookMain(ws, home, "", &out, &errb).Run(context.Background(), []string{"init"}); err != nil {
		t.Fatal(err, errb.String())
	}
	id := "0d0d0d0d-0000-4000-8000-0000000000f3"
	projects := filepath.Join(home, ".claude", "projects", "-w")
	subagents := filepath.Join(projects, id, "subagents")
	if err := os.MkdirAll(subagents, 0o755); err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(projects, id+".jsonl")
	os.WriteFile(transcript, []byte(raceLine(id, 1)), 0o644)
	secret := filepath.Join(elsewhere, "passwd.jsonl")
	os.WriteFile(secret, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644)
	link := filepath.Join(subagents, "agent-a1.jsonl")
	if err := os.Symlink(secret, link); err != nil {
		t.Skip(err)
	}
	out.Reset()
	errb.Reset()
	stdin := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"Stop"}`, id, transcript, ws)
	if err := hookMain(ws, home, stdin, &out, &errb).Run(context.Background(), []string{"hook", "Stop"}); err != nil {
		t.Fatal(err, errb.String())
	}
	if !strings.Contains(errb.String(), link) || !strings.Contains(errb.String(), "a link to "+secret) {
		t.Fatalf("stderr %q does not name the link", errb.String())
	}
	if out.Len() > 0 {
		t.Fatalf("stdout %q", out.String())
	}
	stdout, _, err := runMain(t, filepath.Join(ws, StoreDir, "cairn.db"), "sessions")
	if err != nil || strings.Count(stdout, "0d0d0d0d") != 1 {
		t.Fatalf("sessions: %q %v", stdout, err)
	}
}
