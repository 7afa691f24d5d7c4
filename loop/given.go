package loop

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cairn/workspace"
)

// givenOnce returns what SessionStart gives a conversation of text, cairn's
// context now: the whole of it at a conversation's start, after /clear and
// after a compaction (which dropped the copy given before); on a resume of
// a conversation that was given it, only the lines that changed since, or
// one line saying nothing did. A request thus never carries two copies,
// however often a session is resumed. What was given is kept in
// .cairn/given/<session>.
func givenOnce(w *workspace.Workspace, session, source, text string) (string, error) {
	if session == "" || strings.ContainsAny(session, `/\`) || strings.HasPrefix(session, ".") {
		return text, nil
	}
	path := filepath.Join(w.Root, workspace.Dir, "given", session)
	before, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	out := text
	if source == "resume" && len(before) > 0 {
		out = changedSince(string(before), text)
	}
	if string(before) != text {
		if err := replaceFile(path, []byte(text)); err != nil {
			return "", err
		}
	}
	return out, nil
}

// changedSince is the note a resumed conversation gets: the lines of text
// that were not in what it was given before.
func changedSince(before, text string) string {
	had := make(map[string]bool)
	for _, l := range strings.Split(before, "\n") {
		had[strings.TrimSpace(l)] = true
	}
	var changed []string
	for _, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); t != "" && !had[t] {
			changed = append(changed, l)
		}
	}
	if len(changed) == 0 {
		return "cairn: the context given at the start of this conversation still holds; nothing changed since (cairn context prints it again).\n"
	}
	return fmt.Sprintf("cairn: the context given earlier in this conversation holds, but for these %d new or changed lines (cairn context prints all of it):\n%s\n", len(changed), strings.Join(changed, "\n"))
}
