package loop

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/workspace"
)

// What the person is told ([Reply.Person]) is what only the person can
// do: resume a revived session. The agent is told the same command, but
// cannot run it; the client shows the person's text (Claude Code's and
// Gemini CLI's hook systemMessage) without sending it to the model.

// resumeCommand finds the command a text names for resuming a session,
// compiled when first asked for: every hook and command links this
// package, and a compiled expression is most of what its package
// initialisation would allocate (TestLeanInit).
var resumeCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`claude --resume [0-9A-Za-z-]+`)
})

// crossingForPerson is what the person is shown of a pressure crossing
// whose note names a revived session.
func crossingForPerson(occ *cairn.Occupancy, c *collapseNote) string {
	kept := "the recent rounds in full and the rest as an index"
	if c.weight != nil {
		kept = fmt.Sprintf("the finished frames (%s) collapsed to their results", strings.Join(c.weight.Frames, ", "))
	}
	when := fmt.Sprintf("cairn: the context is %d%% of the way to where the client compacts it (%s tokens).", occ.Percent(), Thousands(occ.Tokens))
	if c.weight == nil {
		when = fmt.Sprintf("cairn: the context is full (%s tokens): the client compacts it before the next request.", Thousands(occ.Tokens))
	}
	return fmt.Sprintf("%s A revived session is ready, %s. Only you can switch to it: %s", when, kept, c.resume)
}

// personAtStart is what the person is shown when a session starts: after
// an automatic compaction, the revived session cairn prepared.
func (l *Loop) personAtStart(ev Event) string {
	line := revivedLine(l.Workspace, ev)
	if line == "" {
		return ""
	}
	return l.personOnce(ev.Session, line, "cairn: "+line+" Only you can switch to it.")
}

// personOnce returns text unless the resume command it names is the one
// the person was last shown for session, and records it as shown: a
// crossing and the compaction after it, or a later manual compaction
// finding the same revived session, show it once. The record is
// .cairn/context/<session>.shown; one that cannot be kept shows text.
// The command is also the one [Loop.Showing] names until the next prompt.
func (l *Loop) personOnce(session, resume, text string) string {
	key := resumeCommand().FindString(resume)
	if key == "" || l.personFile(session, ".shown") == "" {
		return text
	}
	if l.lastShown(session) == key {
		return ""
	}
	return l.personShow(session, key, text)
}

// lastShown is the command the person was last shown for session, ""
// if none is recorded.
func (l *Loop) lastShown(session string) string {
	path := l.personFile(session, ".shown")
	if path == "" {
		return ""
	}
	data, _ := os.ReadFile(path)
	return strings.TrimSpace(string(data))
}

// personShow returns text and records command as what the person was
// shown for session: what [Loop.personOnce] compares and [Loop.Showing]
// names until the next prompt. A pressure crossing's advice is shown
// this way at each crossing, each a moment of its own.
func (l *Loop) personShow(session, command, text string) string {
	command = strings.TrimSpace(command)
	if path := l.personFile(session, ".shown"); path != "" && command != "" && !strings.Contains(command, "\n") {
		_ = replaceFile(path, []byte(command+"\n"))
		_ = replaceFile(l.personFile(session, ".showing"), []byte(command+"\n"))
	}
	return text
}

// Showing returns the command the person was shown for session since its
// last prompt, "" if none: what the status line repeats while the person
// has not moved on. It is the command that resumes a revived session, or
// the cairn command a pressure note recommends, which prints one.
func (l *Loop) Showing(session string) string {
	path := l.personFile(session, ".showing")
	if path == "" {
		return ""
	}
	data, _ := os.ReadFile(path)
	if resume := resumeCommand().FindString(string(data)); resume != "" {
		return resume
	}
	if line := strings.TrimSpace(string(data)); strings.HasPrefix(line, "cairn ") && !strings.Contains(line, "\n") {
		return line
	}
	return ""
}

// ShowingLine is what the status line says of [Loop.Showing]: "revived: "
// and the command that resumes a revived session, else "advised: " and
// the cairn command a pressure note recommends; "" if none.
func (l *Loop) ShowingLine(session string) string {
	switch command := l.Showing(session); {
	case command == "":
		return ""
	case strings.HasPrefix(command, "claude "):
		return "revived: " + command
	default:
		return "advised: " + command
	}
}

// movedOn ends what [Loop.Showing] names for session: a prompt was sent.
func (l *Loop) movedOn(session string) {
	if path := l.personFile(session, ".showing"); path != "" {
		_ = os.Remove(path)
	}
}

// personFile is .cairn/context/<session><ext>, "" when the session cannot
// name a file or there is no workspace.
func (l *Loop) personFile(session, ext string) string {
	if session == "" || strings.ContainsAny(session, `/\.`) || l.Workspace == nil {
		return ""
	}
	return filepath.Join(l.Workspace.Root, workspace.Dir, "context", session+ext)
}
