package cli

import (
	"context"
	"os"

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
	home := gemini.ChatsDir(m.geminiHome(), cwd)
	if f.out == "" {
		if err := os.MkdirAll(home, 0o755); err != nil {
			return nil, err
		}
		if err := gemini.MarkProject(home, cwd); err != nil {
			return nil, err
		}
	}
	path, n, parents, err := m.writeExport(ctx, st, f, mat, lines, home, x.FileName(now), x.SessionID)
	if err != nil {
		return nil, err
	}
	e := &exported{ID: x.SessionID, Path: path, Cwd: cwd, Lines: n, Parents: parents,
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
