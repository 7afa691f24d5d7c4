package main

import (
	"context"
	"os"
	"path/filepath"

	"cairn"
	"cairn/opencode"
	"cairn/surgery"
)

// exportOpencode writes one materialization as a session in opencode's
// store ($XDG_DATA_HOME/opencode, or the data folder --out names) and
// inscribes it with its lineage. Every round goes through its blocks, so a
// Claude Code or Codex session crosses the same way.
func (m *Main) exportOpencode(ctx context.Context, st *store, f *surgeryFlags, mat *cairn.Materialization) (*exported, error) {
	cwd := f.cwd
	if cwd == "" && len(mat.Sources) > 0 {
		cwd = mat.Sources[0].Project
	}
	if cwd == "" {
		return nil, usageError("the source session records no working directory: give --cwd")
	}
	dir := f.out
	if dir == "" {
		dir = m.opencodeDataDir()
	}
	t, err := opencode.ReadTarget(ctx, dir, cwd)
	if err != nil {
		return nil, err
	}
	x := &opencode.Exporter{Cwd: cwd, Summary: surgery.Summary(mat), Now: m.now(), Provider: t.Provider, Model: t.Model,
		Blocks: nativeBlocksAt(mat.Fidelity, mat)}
	s, err := x.Export(mat)
	if err != nil {
		return nil, err
	}
	if err := opencode.WriteSession(ctx, dir, t, x, s); err != nil {
		return nil, err
	}
	logDir, err := m.opencodeLogDir(f.store)
	if err != nil {
		return nil, err
	}
	if _, err := opencode.Mirror(ctx, dir, logDir); err != nil {
		return nil, err
	}
	path := filepath.Join(logDir, s.ID+".jsonl")
	parents, err := m.register(ctx, st, path, s.ID, mat)
	if err != nil {
		return nil, err
	}
	lines := 0
	for _, msg := range s.Messages {
		lines += 1 + len(msg.Parts)
	}
	e := &exported{ID: s.ID, Path: filepath.Join(dir, opencode.DBName), Cwd: cwd, Lines: lines, Parents: parents,
		Resume: "cd " + shellQuote(cwd) + " && opencode --session " + s.ID}
	if !t.DB {
		e.Path = filepath.Join(dir, opencode.StorageDir)
	}
	if c := x.Crossed; c.CallsMapped+c.CallsAsText+c.ThinkingDropped > 0 {
		e.Crossed = crossing{From: foreignAgent(mat, cairn.AgentOpencode), Mapped: c.CallsMapped, AsText: c.CallsAsText, ThinkingDropped: c.ThinkingDropped}
	}
	return e, nil
}

// opencodeDataDir is opencode's data folder: $XDG_DATA_HOME/opencode, else
// ~/.local/share/opencode.
func (m *Main) opencodeDataDir() string {
	home := m.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return opencode.DataDir(m.Getenv, home)
}

// foreignAgent names the harness of the first source that is not own: the
// one a crossing came from.
func foreignAgent(mat *cairn.Materialization, own string) string {
	for _, s := range mat.Sources {
		if a := s.Agent; a != own && !(a == "" && own == cairn.AgentClaudeCode) {
			if a == "" {
				return cairn.AgentClaudeCode
			}
			return a
		}
	}
	return own
}
