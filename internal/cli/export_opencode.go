package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/surgery"
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
		Blocks: opencodeBlocksAt(mat.Fidelity, mat)}
	s, err := x.Export(mat)
	if err != nil {
		return nil, err
	}
	if f.redact {
		if err := m.redactSession(s); err != nil {
			return nil, err
		}
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
		Resume: "cd " + cairn.ShellQuote(cwd) + " && opencode --session " + s.ID}
	if !t.DB {
		e.Path = filepath.Join(dir, opencode.StorageDir)
	}
	if c := x.Crossed; c.CallsMapped+c.CallsAsText+c.ThinkingDropped > 0 {
		e.Crossed = crossing{From: foreignAgent(mat, cairn.AgentOpencode), Mapped: c.CallsMapped, AsText: c.CallsAsText, ThinkingDropped: c.ThinkingDropped}
	}
	return e, nil
}

// redactSession replaces the secrets of an opencode export's title and of
// each of its messages' and parts' documents, every string alone, as
// [Main.redactLines] does a file's lines (opencode's rows and JSON files
// are written from them), and says how many on stderr.
func (m *Main) redactSession(s *opencode.Session) error {
	docs := []*map[string]any{}
	for _, msg := range s.Messages {
		docs = append(docs, &msg.Data)
		for _, p := range msg.Parts {
			docs = append(docs, &p.Data)
		}
	}
	title, err := json.Marshal(s.Title)
	if err != nil {
		return err
	}
	lines := [][]byte{title}
	for _, d := range docs {
		b, err := json.Marshal(*d)
		if err != nil {
			return err
		}
		lines = append(lines, b)
	}
	if lines, err = m.redactLines(lines); err != nil {
		return err
	}
	if err := json.Unmarshal(lines[0], &s.Title); err != nil {
		return err
	}
	for i, d := range docs {
		dec := json.NewDecoder(bytes.NewReader(lines[i+1]))
		dec.UseNumber() // ids and times as written, not as float64
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			return err
		}
		*d = doc
	}
	return nil
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

// opencodeBlocksAt gives a full round's blocks as opencode's writer takes
// them: a Gemini CLI round's calls as Claude Code's, which it maps to its
// own (as it maps Codex's), every other round's as its harness's reader
// built them.
func opencodeBlocksAt(f cairn.Fidelity, mat *cairn.Materialization) func(p *cairn.Piece) ([]*cairn.Block, error) {
	native := nativeBlocksAt(f, mat)
	return func(p *cairn.Piece) ([]*cairn.Block, error) {
		blocks, err := native(p)
		if err != nil || mat.Source(p.Round.SessionID).Agent != cairn.AgentGemini {
			return blocks, err
		}
		return claudecode.GeminiBlocks(blocks), nil
	}
}

// foreignAgent names the harnesses of a materialization's sources that are
// not own, "codex and opencode" for a merge of two: the ones a crossing
// came from; own when there is none.
func foreignAgent(mat *cairn.Materialization, own string) string {
	var from []string
	for _, s := range mat.Sources {
		a := s.Agent
		if a == "" {
			a = cairn.AgentClaudeCode
		}
		if a != own && !slices.Contains(from, a) {
			from = append(from, a)
		}
	}
	if len(from) == 0 {
		return own
	}
	return strings.Join(from, " and ")
}
