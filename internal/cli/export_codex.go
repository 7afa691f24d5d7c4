package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/surgery"
)

// exportCodex writes one materialization as a Codex rollout under
// $CODEX_HOME/sessions (or --out) and inscribes it with its lineage, as
// every client's export is written (writeExport). Rounds of a Claude Code
// session cross from their blocks.
func (m *Main) exportCodex(ctx context.Context, st *store, f *surgeryFlags, mat *cairn.Materialization) (*exported, error) {
	cwd, err := m.resumeCwd(f, mat)
	if err != nil {
		return nil, err
	}
	now := m.now()
	x := &codex.Exporter{ThreadID: codex.NewThreadID(now), Cwd: cwd, Summary: surgery.Summary(mat), Now: now,
		Blocks: blocksAt(mat.Fidelity, mat)}
	if len(mat.Sources) > 0 && mat.Sources[0].Agent == cairn.AgentCodex {
		head, err := st.lines.FindLines(ctx, mat.Sources[0].ID, 1, 5)
		if err != nil {
			return nil, err
		}
		x.Meta = codex.MetaLine(head)
	}
	lines, err := x.Lines(mat)
	if err != nil {
		return nil, err
	}
	home := codex.RolloutPath(m.codexHome(), x.ThreadID, now)
	path, n, parents, err := m.writeExport(ctx, st, f, mat, lines, filepath.Dir(home), filepath.Base(home), x.ThreadID)
	if err != nil {
		return nil, err
	}
	e := &exported{ID: x.ThreadID, Path: path, Cwd: cwd, Lines: n, Parents: parents,
		Resume: "cd " + cairn.ShellQuote(cwd) + " && codex resume " + x.ThreadID}
	if rel, err := filepath.Rel(codex.SessionsDir(m.codexHome()), path); err != nil || !filepath.IsLocal(rel) {
		e.Note = "the client finds a rollout only under " + codex.SessionsDir(m.codexHome()) + ": move the file there to resume it"
	}
	e.Crossed = crossedInto(mat, cairn.AgentCodex, x.Crossed)
	return e, nil
}

// register inscribes an exported file (so it is searchable) and records its
// lineage; it returns the parents.
func (m *Main) register(ctx context.Context, st *store, path, id string, mat *cairn.Materialization) ([]string, error) {
	im := &inscribe.Importer{Store: importStore{st.inscription, st.lines}, Format: transcripts{}}
	if fr, problems := im.ImportFile(ctx, path); fr.Error != "" {
		return nil, fmt.Errorf("register %s: %s", path, fr.Error)
	} else if len(problems) > 0 {
		return nil, fmt.Errorf("register %s: line %d: %s", path, problems[0].Line, problems[0].Reason)
	}
	var parents []string
	for _, s := range mat.Sources {
		parents = append(parents, s.ID)
	}
	if err := st.sessions.SetLineage(ctx, id, lineageOf(mat), parents, mat.Operation, mat.Recipe()); err != nil {
		return nil, err
	}
	return parents, nil
}

// blocksAt returns a function giving a full round's blocks, rebuilt from
// its lines by its own harness's reader and condensed to fidelity f: what a
// writer for another harness translates. An opencode or pi round's calls
// of bash, read, edit and write come as Claude Code's Bash, Read, Edit and
// Write, which the Claude Code and Codex writers map.
func blocksAt(f cairn.Fidelity, mat *cairn.Materialization) func(p *cairn.Piece) ([]*cairn.Block, error) {
	native := nativeBlocksAt(f, mat)
	return func(p *cairn.Piece) ([]*cairn.Block, error) {
		blocks, err := native(p)
		if err != nil {
			return blocks, err
		}
		switch mat.Source(p.Round.SessionID).Agent {
		case cairn.AgentOpencode:
			return opencode.ClaudeBlocks(blocks), nil
		case cairn.AgentPi:
			return pi.ClaudeBlocks(blocks), nil
		}
		return blocks, nil
	}
}

// nativeBlocksAt returns a function giving a full round's blocks as its
// own harness's reader builds them, condensed to fidelity f.
func nativeBlocksAt(f cairn.Fidelity, mat *cairn.Materialization) func(p *cairn.Piece) ([]*cairn.Block, error) {
	return func(p *cairn.Piece) ([]*cairn.Block, error) {
		src := mat.Source(p.Round.SessionID)
		if src == nil {
			return nil, cairn.Errorf(cairn.EINVALID, "Round %d comes from no source session.", p.Round.Seq)
		}
		return surgery.PieceBlocks(formatOf(src.Agent), src, p, f), nil
	}
}

// codexHome is $CODEX_HOME, else ~/.codex.
func (m *Main) codexHome() string {
	home := m.Getenv("HOME")
	return codex.Home(m.Getenv, home)
}
