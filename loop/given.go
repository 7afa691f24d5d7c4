package loop

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/workspace"
)

// givenOnce returns what SessionStart gives a conversation of text, cairn's
// context now: the whole of it at a conversation's start, after /clear and
// after a compaction (which dropped the copy given before); on a resume of
// a conversation that was given it, only the lines that changed since
// other than the session's own ends, or nothing when nothing else did. A
// request thus never carries two copies, however often a session is
// resumed, nor a resume a note of what the conversation itself did. What was given is kept in
// .cairn/given/<session>.
//
// A resume's note not yet sent (no prompt since, [noteSent]) is carried
// across a compaction: Claude Code (2.1.197, 2.1.330) records the
// SessionStart context of `claude --resume ID` before the compaction's
// boundary and chains the messages after it to that context, so the first
// request after `claude --resume ID -p /compact` holds the note and then
// the compaction's context. The note's lines are kept in
// .cairn/given/<session>.note until a prompt, and the compaction's context
// leaves them out: the request holds each line once.
func givenOnce(w *workspace.Workspace, session, source, text string) (string, error) {
	if !workspace.NamesFile(session) {
		return text, nil
	}
	path := filepath.Join(w.Root, workspace.Dir, "given", session)
	before, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	out := text
	switch {
	case source == FromResume && len(before) > 0:
		lines := changedLines(string(before), text, session)
		out = changedNote(lines)
		if err := keepNote(path+".note", out, lines); err != nil {
			return "", err
		}
	case source == FromCompact:
		pending, err := os.ReadFile(path + ".note")
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if len(pending) > 0 {
			out = withoutLines(text, strings.Split(strings.TrimRight(string(pending), "\n"), "\n"))
			if err := os.Remove(path + ".note"); err != nil {
				return "", err
			}
		}
	default:
		if err := keepNote(path+".note", "", nil); err != nil {
			return "", err // a new conversation or /clear: no note is carried
		}
	}
	if string(before) != text {
		if err := replaceFile(path, []byte(text)); err != nil {
			return "", err
		}
	}
	return out, nil
}

// keepNote records at path the lines of a resume's note, or removes what
// an earlier resume left there when note is "".
func keepNote(path, note string, lines []string) error {
	if note == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return replaceFile(path, []byte(strings.Join(lines, "\n")+"\n"))
}

// noteSent forgets the resume note of session [givenOnce] keeps: a prompt
// was sent, and the note with it, so a later compaction drops it with
// the rest.
func noteSent(w *workspace.Workspace, session string) {
	if w == nil || !workspace.NamesFile(session) {
		return
	}
	_ = os.Remove(filepath.Join(w.Root, workspace.Dir, "given", session+".note"))
}

// withoutLines returns text without one occurrence of each of lines, the
// first ones: what a resume's note already gave.
func withoutLines(text string, lines []string) string {
	left := make(map[string]int, len(lines))
	for _, l := range lines {
		left[l]++
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if k := strings.TrimSuffix(l, "\n"); left[k] > 0 {
			left[k]--
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

// changedLines returns the lines of text that were not in what a
// resumed conversation was given before, but for the checkpoints of
// session itself (a board's "### TIME · SESSION" and its "- " lines, the
// state's "Last update: TIME by SESSION": what its own ends wrote, which
// it lived); none when nothing else changed: lines of structure alone (a
// tag, a heading, the index of files, which a board's first checkpoint
// brings) are no change.
func changedLines(before, text, session string) []string {
	had := make(map[string]bool)
	for _, l := range strings.Split(before, "\n") {
		had[strings.TrimSpace(l)] = true
	}
	var changed []string
	own, index, content := false, false, false
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "### "):
			own = strings.HasSuffix(t, " · "+session)
		case !strings.HasPrefix(t, "- "):
			own = false
		}
		if t == "<index>" {
			index = true
		}
		structure := index || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">")
		if t == "</index>" {
			index = false
		}
		if t != "" && !had[t] && !own && !strings.HasSuffix(t, " by "+session) {
			changed = append(changed, l)
			content = content || !structure
		}
	}
	if !content {
		return nil
	}
	return changed
}

// changedNote is the note a resumed conversation gets of the lines
// [changedLines] found, "" for none. It says what changed since the
// context was given, not that the context given still holds: a
// compaction that carries the note ([givenOnce]) dropped that context.
func changedNote(changed []string) string {
	if len(changed) == 0 {
		return ""
	}
	return fmt.Sprintf("cairn: the context given earlier in this conversation has %d new or changed lines since (cairn context prints all of it):\n%s\n", len(changed), strings.Join(changed, "\n"))
}
