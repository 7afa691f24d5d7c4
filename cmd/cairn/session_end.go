package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"cairn"
	"cairn/claudecode"
	"cairn/surgery"
	"cairn/workspace"
)

// A sessionChange is what a session changed, as its end says it and
// recover shows it: the relay files' changes and the files it wrote
// ([workspace.SessionChanges]; files relative to the workspace when
// inside it), the frames it pushed or planned and those of them it
// popped.
type sessionChange struct {
	workspace.SessionChanges
	Pushed []string `json:"frames_pushed,omitempty"` // "id Title"
	Popped []string `json:"frames_popped,omitempty"`
}

// Limits of the line a session's end writes on the board, which is part of
// the context every SessionStart gives: names per list, runes per name,
// runes for the whole of what changed.
const (
	changeNames    = 3
	changeNameLen  = 48
	changeLineLen  = 320
	changeFileName = 40
)

// String is what changed on one line, bounded (changeLineLen): each list
// names its first few and counts the rest; "" when nothing is known to
// have changed.
func (c *sessionChange) String() string {
	var parts []string
	add := func(what string, names []string, n int) {
		if len(names) == 0 {
			return
		}
		var shown []string
		for _, name := range names[:min(len(names), changeNames)] {
			shown = append(shown, clipLine(name, n))
		}
		s := what + " " + strings.Join(shown, ", ")
		if more := len(names) - len(shown); more > 0 {
			s += fmt.Sprintf(" (+%d more)", more)
		}
		parts = append(parts, s)
	}
	add("decided", c.Decisions, changeNameLen)
	add("todos added", c.TodosAdded, changeNameLen)
	add("finished", c.TodosDone, changeNameLen)
	add("blocked", c.TodosBlocked, changeNameLen)
	add("frames pushed", c.Pushed, changeNameLen)
	add("popped", c.Popped, changeNameLen)
	add("wrote", c.Files, changeFileName)
	return clipLine(strings.Join(parts, "; "), changeLineLen)
}

// sessionChanged gathers what the session changed: its relay files'
// changes since its runs started, the files its transcript's end wrote
// (the last 256 KiB: [claudecode.LastWrites]), and its frames.
func (m *Main) sessionChanged(ctx context.Context, w *workspace.Workspace, in *claudecode.HookInput) (*sessionChange, error) {
	files, err := m.wroteFiles(in, w.Root)
	if err != nil {
		return nil, err
	}
	rel, err := w.SessionChanged(files)
	if err != nil {
		return nil, err
	}
	st, err := m.openStore("")
	if err != nil {
		return nil, err
	}
	defer st.Close()
	frames, err := st.frames.FindFrames(ctx)
	if err != nil {
		return nil, err
	}
	return changeOf(rel, frames, w.Session), nil
}

// changeOf is what session changed: rel, and its frames among frames.
func changeOf(rel *workspace.SessionChanges, frames []*cairn.Frame, session string) *sessionChange {
	c := &sessionChange{}
	if rel != nil {
		c.SessionChanges = *rel
	}
	for _, f := range frames {
		if f.SessionID != session || session == "" {
			continue
		}
		name := f.ID + " " + f.Title
		c.Pushed = append(c.Pushed, name)
		if surgery.Finished(f) {
			c.Popped = append(c.Popped, name)
		}
	}
	return c
}

// wroteFiles returns the files the transcript's main chain wrote or
// edited at its end, with content and without error, relative to root
// when inside it.
func (m *Main) wroteFiles(in *claudecode.HookInput, root string) ([]string, error) {
	if in.TranscriptPath == "" {
		return nil, nil
	}
	f, err := m.openTranscript(in.TranscriptPath)
	if f == nil {
		return nil, err
	}
	defer f.Close()
	calls, err := claudecode.LastWrites(f)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, call := range calls {
		if call.Failed || call.Empty || call.Path == "" {
			continue
		}
		p := call.Path
		if r, err := filepath.Rel(root, p); err == nil && filepath.IsAbs(p) && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			p = filepath.ToSlash(r)
		}
		if !containsString(files, p) {
			files = append(files, p)
		}
	}
	return files, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
