package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/assemble"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/workspace"
)

// ContextChars is what a session start's context may take: Claude Code
// passes 10,000 characters on whole, and the note pointing to the full
// context needs a line.
const ContextChars = claudecode.MaxAdditionalContext - 800

// start is the context a session starts from: the assembled context
// (core, current frame and stack, relay state, index) within
// [ContextChars], the whole of it written to .cairn/context/<session>.xml
// when it does not fit, given once per conversation ([givenOnce]); the
// relay files' state is recorded for the session's end. After an
// automatic compaction it names the revived session cairn prepared.
// Tokens are not counted: Claude Code's limit is in characters, and
// loading the BPE ranks would cost more than the whole hook may take.
func (l *Loop) start(ctx context.Context, ev Event) (string, error) {
	w := l.Workspace
	st, err := l.Open()
	if err != nil {
		return "", err
	}
	if l.SyncMission != nil {
		if err := l.SyncMission(ctx, st); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
			return "", err // mission.json edited by hand is read back first
		}
	}
	prime, err := w.Prime(workspace.DefaultPrimeChars)
	if err != nil {
		return "", err
	}
	relay := []assemble.Document{{Name: "cairn prime", Text: prime}}
	board, err := l.currentBoard()
	if err != nil {
		return "", err
	}
	if board != nil {
		relay = append(relay, *board)
	}
	req := assemble.Request{
		Owner:  l.Owner,
		Budget: cairn.DefaultBudget(),
		Format: assemble.XML,
		Relay:  relay,
		Files:  Index(w.Root),
	}
	req.Budget.Tokens, req.Budget.Chars = 0, ContextChars
	a := &assemble.Assembler{Frames: st.Frames, Missions: st.Missions, Rounds: st.Rounds, Sessions: st.Sessions}
	view, err := a.View(ctx, req)
	if err != nil {
		return "", err
	}
	out, err := assemble.Build(view, req.Budget, req.Format, assemble.Estimate)
	if err != nil {
		return "", err
	}
	text := out.Text
	if len(out.Cuts) > 0 {
		// The whole context is built from the same view: reading the
		// store once is most of what the hook costs.
		req.Budget.Chars = 0
		full, err := assemble.Build(view, req.Budget, req.Format, assemble.Estimate)
		if err != nil {
			return "", err
		}
		path, err := writeFullContext(w, ev.Session, full.Text)
		if err != nil {
			return "", err
		}
		text = strings.TrimRight(text, "\n") + fmt.Sprintf("\n\nThis context was cut to fit; all of it (%d characters) is in %s: read it when you need what was cut.\n", len(full.Text), path)
	}
	if text, err = givenOnce(w, ev.Session, ev.Source, text); err != nil {
		return "", err
	}
	if err := l.startRun(ctx, st, ev); err != nil {
		return "", err
	}
	if line := revivedLine(w, ev); line != "" {
		text = strings.TrimRight(text, "\n") + "\n\n" + line + "\n"
	}
	return text, nil
}

// startRun records where a run of the session starts, for its end: the
// relay files' state (after a compaction, once what the run before it
// changed is kept: the conversation goes on, and its end names what was
// decided before the compaction too) and the start of its writes record.
func (l *Loop) startRun(ctx context.Context, st *Stores, ev Event) error {
	w := l.Workspace
	if ev.Source == FromCompact {
		if _, err := w.SessionChanged(nil); err != nil && cairn.ErrorCode(err) != cairn.EINVALID {
			return err
		}
	}
	if err := w.StartSession(); err != nil && cairn.ErrorCode(err) != cairn.EINVALID {
		return err // EINVALID: no session id that names a file, nothing to compare at its end
	}
	return l.beginWrites(ctx, st, ev.Session)
}

// currentBoard returns the board of the situation the session is in, or
// nil if it has none.
func (l *Loop) currentBoard() (*assemble.Document, error) {
	w := l.Workspace
	here, err := w.Situation(l.Wd)
	if err != nil {
		return nil, err
	}
	at, err := w.Current(here)
	if err != nil {
		return nil, err
	}
	name := cairn.BoardFile
	if at != "." {
		name = at + "/" + cairn.BoardFile
	}
	data, err := os.ReadFile(filepath.Join(w.Root, filepath.FromSlash(name)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return &assemble.Document{Name: name, Text: string(data)}, nil
}

// Index lists the workspace's relay files that exist, for the context's
// index.
func Index(root string) []assemble.File {
	var files []assemble.File
	for _, f := range []struct{ name, note string }{
		{cairn.ProjectFile, "identity and conventions"},
		{cairn.StateFile, "phase, task, progress (cairn state)"},
		{cairn.DecisionsFile, "decisions (cairn decide)"},
		{cairn.TodosFile, "todos (cairn todo list)"},
		{cairn.BoardFile, "checkpoints and messages (cairn checkpoint)"},
	} {
		if _, err := os.Stat(filepath.Join(root, f.name)); err == nil {
			files = append(files, assemble.File{Path: f.name, Note: f.note})
		}
	}
	return files
}

// writeFullContext writes the uncut context to .cairn/context/ and returns
// its path relative to the workspace.
func writeFullContext(w *workspace.Workspace, session, text string) (string, error) {
	name := "context.xml"
	if session != "" && !strings.ContainsAny(session, `/\.`) {
		name = session + ".xml"
	}
	rel := filepath.Join(workspace.Dir, "context", name)
	// A temporary file of its own, not synced (the context is rebuilt at
	// every session start): two sessions resumed at once each write
	// theirs, and the last rename wins.
	if err := replaceFile(filepath.Join(w.Root, rel), []byte(text)); err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// replaceFile writes data to a temporary file beside path and renames it
// over path, not synced: what it holds is rebuilt when lost.
func replaceFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cairn-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
