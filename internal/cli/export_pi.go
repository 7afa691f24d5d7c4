package cli

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/surgery"
)

// exportPi writes one materialization as a new pi session in the working
// directory's folder under pi's sessions folder (or --out DIR) and
// inscribes it with its lineage. Rounds of other harnesses cross from
// their blocks: Gemini CLI's and opencode's calls as Claude Code's first.
func (m *Main) exportPi(ctx context.Context, st *store, f *surgeryFlags, mat *cairn.Materialization) (*exported, error) {
	cwd, err := m.resumeCwd(f, mat)
	if err != nil {
		return nil, err
	}
	now := m.now()
	native, crossed := nativeBlocksAt(mat.Fidelity, mat), blocksAt(mat.Fidelity, mat)
	x := &pi.Exporter{SessionID: pi.NewSessionID(), Cwd: cwd, Summary: surgery.Summary(mat), Now: now,
		Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) {
			switch mat.Source(p.Round.SessionID).Agent {
			case cairn.AgentPi:
				return native(p)
			case cairn.AgentGemini:
				blocks, err := native(p)
				return claudecode.GeminiBlocks(blocks), err
			}
			return crossed(p)
		}}
	if len(mat.Sources) == 1 && mat.Sources[0].Agent == cairn.AgentPi {
		x.ParentSession = mat.Sources[0].Path
	}
	lines, err := x.Lines(mat)
	if err != nil {
		return nil, err
	}
	home := pi.ProjectDir(pi.SessionsDirs(m.Getenv, m.Getenv("HOME"))[0], cwd)
	path, n, parents, err := m.writeExport(ctx, st, f, mat, lines, home, x.FileName(now), x.SessionID)
	if err != nil {
		return nil, err
	}
	e := &exported{ID: x.SessionID, Path: path, Cwd: cwd, Lines: n, Parents: parents,
		Resume: "cd " + cairn.ShellQuote(cwd) + " && pi --session " + cairn.ShellQuote(path)}
	e.Crossed = crossedInto(mat, cairn.AgentPi, x.Crossed)
	return e, nil
}
