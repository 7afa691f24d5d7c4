package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

var _ cairn.BoardStore = (*Workspace)(nil)

// checkpointsHeading opens the section of a board that cairn appends to.
const checkpointsHeading = "## Checkpoints"

// Situation returns the situation that folder dir is: its slash-separated
// path from the workspace root, "." for the root itself. Returns ENOTFOUND
// if dir is not a folder and EINVALID if it lies outside the workspace.
func (w *Workspace) Situation(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(abs); err != nil || !info.IsDir() {
		if _, err := w.inside(abs, dir); err != nil {
			return "", err
		}
		return "", cairn.Errorf(cairn.ENOTFOUND, "No folder %s: a situation is a folder with a board.md and an index.md.", dir)
	}
	return w.inside(abs, dir)
}

// inside returns path relative to the workspace root, both with every
// symlink resolved, or EINVALID if path leads outside the workspace: a
// symlinked folder must not let a board or an index be read or written
// elsewhere. name is path as the user gave it, for the message.
func (w *Workspace) inside(path, name string) (string, error) {
	root, err := filepath.EvalSymlinks(w.Root)
	if err != nil {
		root = w.Root
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path // does not exist yet: checked as written
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		if real != path {
			return "", cairn.Errorf(cairn.EINVALID, "%s leads outside the workspace %s (to %s, through a symlink).", name, w.Root, real)
		}
		return "", cairn.Errorf(cairn.EINVALID, "%s is outside the workspace %s.", name, w.Root)
	}
	return filepath.ToSlash(rel), nil
}

func (w *Workspace) situationDir(situation string) (string, error) {
	dir := filepath.Join(w.Root, filepath.FromSlash(situation))
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", cairn.Errorf(cairn.ENOTFOUND, "No situation %q: %s is not a folder.", situation, dir)
	}
	if _, err := w.inside(dir, situation); err != nil {
		return "", err
	}
	return dir, nil
}

// FindBoard returns a situation's board; a situation without board.md has
// an empty one. Returns ENOTFOUND if the situation's folder is missing.
func (w *Workspace) FindBoard(situation string) (*cairn.Board, error) {
	dir, err := w.situationDir(situation)
	if err != nil {
		return nil, err
	}
	data, err := readFile(filepath.Join(dir, cairn.BoardFile))
	if err != nil {
		return nil, err
	}
	return &cairn.Board{Situation: situation, Text: string(data), Checkpoints: parseCheckpoints(string(data))}, nil
}

// FindIndex returns a situation's index.md, and false if it has none.
func (w *Workspace) FindIndex(situation string) (string, bool, error) {
	dir, err := w.situationDir(situation)
	if err != nil {
		return "", false, err
	}
	data, err := os.ReadFile(filepath.Join(dir, cairn.IndexFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	} else if err != nil {
		return "", false, fmt.Errorf("read index: %w", err)
	}
	return string(data), true, nil
}

// Listing names what a situation's folder holds, folders first with a
// trailing slash: what engage shows where there is no index.md.
func (w *Workspace) Listing(situation string) ([]string, error) {
	dir, err := w.situationDir(situation)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", situation, err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if e.IsDir() {
			names = append(names, e.Name()+"/")
		} else {
			names = append(names, e.Name())
		}
	}
	sort.SliceStable(names, func(i, j int) bool {
		return strings.HasSuffix(names[i], "/") && !strings.HasSuffix(names[j], "/")
	})
	return names, nil
}

// Checkpoint appends c to the situation's board under "## Checkpoints",
// creating board.md, or the section, if needed. The rest of the board is
// kept byte for byte. Returns ENOTFOUND if the situation's folder is
// missing and EINVALID if c says nothing.
func (w *Workspace) Checkpoint(situation string, c *cairn.Checkpoint) error {
	unlock, err := w.lock()
	if err != nil {
		return err
	}
	defer unlock()
	e, err := w.checkpoint(situation, c)
	if err != nil {
		return err
	}
	return writeFiles(e)
}

// checkpoint is Checkpoint for a caller that holds the lock: the board
// with c in it, for the caller to write.
func (w *Workspace) checkpoint(situation string, c *cairn.Checkpoint) (edit, error) {
	if strings.TrimSpace(c.Done) == "" && strings.TrimSpace(c.Next) == "" {
		return edit{}, cairn.Errorf(cairn.EINVALID, "A checkpoint says what was done, what comes next, or both.")
	}
	dir, err := w.situationDir(situation)
	if err != nil {
		return edit{}, err
	}
	if c.Time.IsZero() {
		c.Time = w.now()
	}
	if c.Session == "" {
		c.Session = w.Session
	}
	path := filepath.Join(dir, cairn.BoardFile)
	data, err := readFile(path)
	if err != nil {
		return edit{}, err
	}
	text := string(data)
	if text == "" {
		text = fmt.Sprintf("# %s\n\n%s\n", situationTitle(w.Root, situation), checkpointsHeading)
	}
	if c.Auto != "" {
		text = pruneAuto(text, c.Session, c.Auto, cairn.AutoCheckpoints)
	}
	return edit{path: path, data: []byte(insertCheckpoint(text, formatCheckpoint(c))), held: data, read: true}, nil
}

func situationTitle(root, situation string) string {
	if situation == "." {
		return filepath.Base(root)
	}
	return situation
}

// pruneAuto drops automatic checkpoints (with an "- Auto:" line) from the
// checkpoints section: those of session for the same reason as auto (a
// session's end replaces its earlier end, never the context's exhaustion,
// which names the session prepared for it), and all but the last keep-1
// of the others, so the entry about to be added makes keep. Everything
// else is kept byte for byte.
func pruneAuto(text, session, auto string, keep int) string {
	lines := strings.SplitAfter(text, "\n")
	type entry struct {
		start, end int
		session    string
		auto       bool
		reason     string
	}
	var entries []entry
	in := false
	for i, line := range lines {
		l := strings.TrimRight(line, "\r\n")
		switch {
		case l == checkpointsHeading:
			in = true
			continue
		case strings.HasPrefix(l, "## ") || strings.HasPrefix(l, "# "):
			in = false
		}
		if n := len(entries); n > 0 && entries[n-1].end < 0 && (!in || strings.HasPrefix(l, "### ")) {
			entries[n-1].end = i
		}
		if !in {
			continue
		}
		if m := checkpointHeading().FindStringSubmatch(l); m != nil {
			entries = append(entries, entry{start: i, end: -1, session: m[2]})
		} else if n := len(entries); n > 0 && entries[n-1].end < 0 && strings.HasPrefix(l, "- Auto: ") {
			entries[n-1].auto, entries[n-1].reason = true, strings.TrimPrefix(l, "- Auto: ")
		}
	}
	if n := len(entries); n > 0 && entries[n-1].end < 0 {
		entries[n-1].end = len(lines)
	}
	drop := make([]bool, len(lines))
	others := 0
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if !e.auto {
			continue
		}
		if e.session != session || autoKind(e.reason) != autoKind(auto) {
			others++
			if others < keep {
				continue
			}
		}
		for j := e.start; j < e.end; j++ {
			drop[j] = true
		}
	}
	var b strings.Builder
	for i, line := range lines {
		if !drop[i] {
			b.WriteString(line)
		}
	}
	return b.String()
}

// autoKind is an automatic checkpoint's reason without its detail:
// "exit: session end (other)" and "exit: session end (clear)" are one kind.
func autoKind(reason string) string {
	kind, _, _ := strings.Cut(reason, " (")
	return kind
}

// insertCheckpoint puts entry at the end of the checkpoints section: before
// the next "## " heading after it, or at the end of the text. A board
// without the section gets one at its end.
func insertCheckpoint(text, entry string) string {
	lines := strings.SplitAfter(text, "\n")
	start := -1
	for i, line := range lines {
		if strings.TrimRight(line, "\r\n") == checkpointsHeading {
			start = i
			break
		}
	}
	if start < 0 {
		return strings.TrimRight(text, "\n") + "\n\n" + checkpointsHeading + "\n\n" + entry
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "## ") || strings.HasPrefix(lines[i], "# ") {
			end = i
			break
		}
	}
	before := strings.TrimRight(strings.Join(lines[:end], ""), "\n") + "\n\n" + entry
	if end == len(lines) {
		return before
	}
	return before + "\n" + strings.Join(lines[end:], "")
}

func formatCheckpoint(c *cairn.Checkpoint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s · %s\n", c.Time.UTC().Format(time.RFC3339), c.Session)
	if c.Done != "" {
		fmt.Fprintf(&b, "- Done: %s\n", oneLine(c.Done))
	}
	if c.Next != "" {
		fmt.Fprintf(&b, "- Next: %s\n", oneLine(c.Next))
	}
	if c.Auto != "" {
		fmt.Fprintf(&b, "- Auto: %s\n", oneLine(c.Auto))
	}
	return b.String()
}

var checkpointHeading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^###\s+(\S+)\s+·\s+(\S+)\s*$`) })

func parseCheckpoints(text string) []*cairn.Checkpoint {
	var list []*cairn.Checkpoint
	var c *cairn.Checkpoint
	in := false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case line == checkpointsHeading:
			in = true
			continue
		case strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "# "):
			in, c = false, nil
			continue
		case !in:
			continue
		}
		if m := checkpointHeading().FindStringSubmatch(line); m != nil {
			t, err := time.Parse(time.RFC3339, m[1])
			if err != nil {
				c = nil
				continue
			}
			c = &cairn.Checkpoint{Time: t, Session: m[2]}
			list = append(list, c)
		} else if c != nil {
			if v, ok := strings.CutPrefix(line, "- Done: "); ok {
				c.Done = v
			} else if v, ok := strings.CutPrefix(line, "- Next: "); ok {
				c.Next = v
			} else if v, ok := strings.CutPrefix(line, "- Auto: "); ok {
				c.Auto = v
			}
		}
	}
	return list
}
