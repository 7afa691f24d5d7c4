package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// fullSession is a loop whose Claude Code session's last reply carried
// 995,000 tokens, past where the client compacts any window, and a
// prompt event of it; each export is recorded in exported, its command
// naming a new session.
func fullSession(t *testing.T) (l *Loop, ev Event, exported *[]string) {
	t.Helper()
	l = newLoop(t)
	return sessionAt(t, l, 995_000)
}

// sessionAt writes l's Claude Code session (Opus 5.5: a 1M window the
// client compacts at 967,000) with every reply carrying tokens, and
// returns a prompt event of it; each export is recorded in exported.
func sessionAt(t *testing.T, l *Loop, tokens int) (*Loop, Event, *[]string) {
	t.Helper()
	sample, err := os.ReadFile("../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	full := regexp.MustCompile(`"input_tokens":\d+`).ReplaceAll(sample, []byte(fmt.Sprintf(`"input_tokens":%d`, tokens)))
	full = regexp.MustCompile(`"cache_(read|creation)_input_tokens":\d+`).ReplaceAll(full, []byte(`"cache_${1}_input_tokens":0`))
	const session = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04"
	l.Workspace.Session = session
	path := filepath.Join(l.Wd, session+".jsonl")
	if err := os.WriteFile(path, full, 0o644); err != nil {
		t.Fatal(err)
	}
	exported := new([]string)
	l.Export = func(ctx context.Context, st *Stores, mat *cairn.Materialization, dir, cwd string) (string, error) {
		*exported = append(*exported, fmt.Sprintf("cd /p && claude --resume 00000000-0000-4000-8000-00000000000%d", len(*exported)+1))
		return (*exported)[len(*exported)-1], nil
	}
	return l, Event{Kind: Prompt, Prompt: "go on", Harness: ClaudeCode, Session: session, Transcript: path, Cwd: l.Wd}, exported
}

// TestPersonSeesTheResume (issue #42, 2e): the command that resumes a
// revived session, which only the person can run, is shown to the person
// once per crossing: at the prompt that crosses into a full context, not
// again at the compaction that prepared the same session nor at the
// prompts after; a later compaction's new revived session is shown once
// too, and the agent is still told each. Until the next prompt the status
// line repeats it ([Loop.Showing]).
func TestPersonSeesTheResume(t *testing.T) {
	l, ev, exported := fullSession(t)
	r := handle(t, l, ev)
	if len(*exported) != 1 {
		t.Fatalf("%d revived sessions exported, want 1", len(*exported))
	}
	command := (*exported)[0]
	if !strings.Contains(r.Person, command) || !strings.Contains(r.Agent, command) {
		t.Fatalf("the crossing's reply does not give %q to both; agent %q, person %q", command, r.Agent, r.Person)
	}
	if !strings.Contains(r.Person, "Only you can switch to it") || strings.Contains(r.Person, "%!") {
		t.Errorf("the person reads %q", r.Person)
	}
	ev.Kind, ev.Trigger = PreCompact, "auto"
	handle(t, l, ev)
	ev.Kind, ev.Source = Start, FromCompact
	if r := handle(t, l, ev); r.Person != "" || !strings.Contains(r.Agent, command) {
		t.Errorf("after the compaction the person is shown %q again (agent %q); want nothing new", r.Person, r.Agent)
	}
	if got := l.Showing(ev.Session); !strings.HasSuffix(command, got) || got == "" {
		t.Errorf("before the next prompt the status line repeats %q, want %q", got, command)
	}
	if got := l.ShowingLine(ev.Session); got != "revived: "+l.Showing(ev.Session) {
		t.Errorf("the status line reads %q", got)
	}
	ev.Kind = Prompt
	if r := handle(t, l, ev); r.Person != "" {
		t.Errorf("the next prompt shows the person %q", r.Person)
	}
	if got := l.Showing(ev.Session); got != "" {
		t.Errorf("after the next prompt the status line still repeats %q", got)
	}

	// A later compaction prepares another session: shown once.
	if err := os.Remove(filepath.Join(l.Workspace.Root, ".cairn", "context", ev.Session+".revival.json")); err != nil {
		t.Fatal(err)
	}
	ev.Kind = PreCompact
	handle(t, l, ev)
	if len(*exported) != 2 {
		t.Fatalf("%d revived sessions exported, want 2", len(*exported))
	}
	ev.Kind = Start
	if r := handle(t, l, ev); !strings.Contains(r.Person, (*exported)[1]) || !strings.HasPrefix(r.Person, "cairn: ") {
		t.Errorf("after the second compaction the person is shown %q, want %q", r.Person, (*exported)[1])
	}
	if got := l.Showing(ev.Session); got == "" || !strings.HasSuffix((*exported)[1], got) {
		t.Errorf("after the second compaction the status line repeats %q, want %q", got, (*exported)[1])
	}
	if r := handle(t, l, ev); r.Person != "" {
		t.Errorf("a second start after that compaction shows the person %q again", r.Person)
	}
}

// TestPersonSeesTheAdvice (issue #42, walk-through 1): a crossing of the
// 70 % and of the 85 % mark whose note recommends advise's command shows
// the person the same command, at each crossing and at no prompt between:
// it ends in a session only the person can switch to. Until the next
// prompt the status line repeats it ([Loop.Showing]).
func TestPersonSeesTheAdvice(t *testing.T) {
	l, ev, exported := sessionAt(t, newLoop(t), 700_000)
	var exports []string
	var first string
	command := regexp.MustCompile(`Command: (cairn [^\n]+?) \(it prints`)
	for i, tokens := range []int{700_000, 850_000} {
		if i > 0 {
			exports = append(exports, *exported...)
			_, _, exported = sessionAt(t, l, tokens)
		}
		r := handle(t, l, ev)
		m := command.FindStringSubmatch(r.Agent)
		if m == nil {
			t.Fatalf("at %d tokens the agent is given no command: %q", tokens, r.Agent)
		}
		if i == 0 {
			first = m[1]
		} else if m[1] != first {
			t.Fatalf("at %d tokens the command is %q, not the first mark's %q: nothing stands", tokens, m[1], first)
		}
		if !strings.Contains(r.Person, ": "+m[1]+".") || !strings.Contains(r.Person, "Only you can switch to it") || !strings.HasPrefix(r.Person, "cairn: ") {
			t.Errorf("at %d tokens the agent is given %q and the person is shown %q", tokens, m[1], r.Person)
		}
		if stands := strings.Contains(r.Person, "still stands"); stands != (i > 0) {
			t.Errorf("at %d tokens the person is shown %q: the advice of the mark before, %v", tokens, r.Person, i > 0)
		}
		if got := l.Showing(ev.Session); got != m[1] {
			t.Errorf("at %d tokens the status line repeats %q, want %q", tokens, got, m[1])
		}
		if got := l.ShowingLine(ev.Session); got != "advised: "+m[1] {
			t.Errorf("at %d tokens the status line reads %q", tokens, got)
		}
		if r := handle(t, l, ev); r.Person != "" || r.Agent != "" || l.Showing(ev.Session) != "" {
			t.Errorf("the prompt after the crossing at %d tokens: agent %q, person %q, status line %q", tokens, r.Agent, r.Person, l.Showing(ev.Session))
		}
	}
	if exports = append(exports, *exported...); len(exports) != 0 {
		t.Errorf("advice exported %v", exports)
	}
}
