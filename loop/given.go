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
		out = changedSince(string(before), text, session)
	}
	if string(before) != text {
		if err := replaceFile(path, []byte(text)); err != nil {
			return "", err
		}
	}
	return out, nil
}

// changedSince is the note a resumed conversation gets: the lines of text
// that were not in what it was given before, but for the checkpoints of
// session itself (a board's "### TIME · SESSION" and its "- " lines, the
// state's "Last update: TIME by SESSION": what its own ends wrote, which
// it lived). "" when nothing else changed: lines
// of structure alone (a tag, a heading, the index of files, which a
// board's first checkpoint brings) are no change.
func changedSince(before, text, session string) string {
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
		return ""
	}
	return fmt.Sprintf("cairn: the context given earlier in this conversation holds, but for these %d new or changed lines (cairn context prints all of it):\n%s\n", len(changed), strings.Join(changed, "\n"))
}
