package cli

import (
	"context"
	"path/filepath"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/surgery"
)

// exportGemini writes one materialization as a Gemini CLI session in the
// project's chats folder under $GEMINI_CLI_HOME/.gemini (or --out) and
// inscribes it with its lineage. Rounds of Claude Code and Codex sessions
// cross from their blocks.
func (m *Main) exportGemini(ctx context.Context, st *store, f *surgeryFlags, mat *cairn.Materialization) (*exported, error) {
	cwd, err := m.resumeCwd(f, mat)
	if err != nil {
		return nil, err
	}
	now := m.now()
	x := &gemini.Exporter{SessionID: gemini.NewSessionID(), Project: cwd, Summary: surgery.Summary(mat), Now: now,
		Document: f.geminiDocument, Blocks: blocksAt(mat.Fidelity, mat)}
	lines, err := x.Lines(mat)
	if err != nil {
		return nil, err
	}
	if f.redact {
		if lines, err = m.redactLines(lines); err != nil {
			return nil, err
		}
	}
	dir, err := m.outDir(f, gemini.ChatsDir(m.geminiHome(), cwd))
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, x.FileName(now))
	if err := writeAtomic(path, lines, 0o600); err != nil {
		return nil, err
	}
	if f.out == "" {
		if err := gemini.MarkProject(dir, cwd); err != nil {
			return nil, err
		}
	}
	parents, err := m.register(ctx, st, path, x.SessionID, mat)
	if err != nil {
		return nil, err
	}
	e := &exported{ID: x.SessionID, Path: path, Cwd: cwd, Lines: len(lines), Parents: parents,
		Resume: "cd " + cairn.ShellQuote(cwd) + " && gemini --resume " + x.SessionID}
	if f.out != "" {
		e.Note = "the client finds a session only in its project's chats folder (" + gemini.ChatsDir(m.geminiHome(), cwd) + "): move the file there to resume it"
	}
	e.Crossed = crossedInto(mat, cairn.AgentGemini, x.Crossed)
	return e, nil
}

// geminiHome is $GEMINI_CLI_HOME/.gemini, else ~/.gemini.
func (m *Main) geminiHome() string {
	return gemini.Home(m.Getenv, m.Getenv("HOME"))
}
