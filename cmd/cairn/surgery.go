package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cairn"
	"cairn/claudecode"
	"cairn/export"
	"cairn/inscribe"
	"cairn/surgery"
)

// surgeryFlags are the flags every surgical command shares: where the
// store is, the fidelity of full rounds, and what to write.
type surgeryFlags struct {
	storeFlags
	fidelity string
	format   string
	out      string
	cwd      string
}

const surgeryFormats = `
Formats (--format):
  claude     a Claude Code session the real client resumes: written to the
             project folder of --cwd (default: the source session's folder)
             under ~/.claude/projects/ (or $CLAUDE_CONFIG_DIR/projects/), or to
             --out DIR; registered in the store with lineage "surgery"; the
             command to resume it is printed.
  codex      a Codex CLI rollout the real client resumes: written under
             $CODEX_HOME/sessions/YYYY/MM/DD/ (default ~/.codex), or to --out
             DIR; a fresh thread id; registered with lineage "surgery"; the
             command to resume it is printed. A Claude Code session crosses:
             shell, reads and edits become Codex's calls, other calls text,
             thinking is dropped and counted.
  markdown   for people, on standard output (or --out FILE)
  json       for programs, on standard output (or --out FILE)

Fidelity of rounds in full (--fidelity): full (default), partial (thinking as
a reference, tool calls and results summarized), text (user and assistant text
only), or per kind: thinking=full|reference|omit,tool_use=full|summary|omit,
tool_result=full|summary|omit. User and assistant text are always kept.`

func (f *surgeryFlags) register(fs *flag.FlagSet, format string) {
	f.storeFlags.register(fs, false)
	fs.StringVar(&f.fidelity, "fidelity", "full", "fidelity of rounds in full: full | partial | text | thinking=…,tool_use=…,tool_result=…")
	fs.StringVar(&f.format, "format", format, "claude | codex | markdown | json")
	fs.StringVar(&f.out, "out", "", "claude, codex: the folder to write the session to; markdown, json: the file")
	fs.StringVar(&f.cwd, "cwd", "", "claude, codex: the working directory to resume in (default: the source session's)")
}

func (f *surgeryFlags) parse() (cairn.Fidelity, error) {
	switch f.format {
	case "claude", "codex", "markdown", "json":
	default:
		return cairn.Fidelity{}, usageError("--format must be claude, codex, markdown or json, got %q", f.format)
	}
	return cairn.ParseFidelity(f.fidelity)
}

// A surgicalCommand is an operation that takes a session and one more
// argument and writes what it makes in the chosen format.
type surgicalCommand struct {
	name, synopsis, help string
	// prepare checks the second argument before the store is opened.
	prepare func(arg string) (any, error)
	run     func(ctx context.Context, st surgery.Store, session string, arg any, fid cairn.Fidelity) ([]*cairn.Materialization, error)
}

// runSurgical runs c: flags, two positional arguments, the operation, and
// emit.
func (m *Main) runSurgical(ctx context.Context, args []string, c surgicalCommand) error {
	var f surgeryFlags
	fs := m.newFlagSet(c.name, "[flags] "+c.synopsis, c.help+surgeryFormats)
	f.register(fs, "claude")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return usageError("%s takes %s", c.name, strings.Join(strings.Fields(c.synopsis), " and "))
	}
	fid, err := f.parse()
	if err != nil {
		return err
	}
	var arg any = pos[1]
	if c.prepare != nil {
		if arg, err = c.prepare(pos[1]); err != nil {
			return err
		}
	}
	st, err := m.openStore(f.store)
	if err != nil {
		return err
	}
	defer st.Close()
	sst := st.surgery()
	sst.LinesOnly = f.format == "claude" || f.format == "codex"
	ms, err := c.run(ctx, sst, pos[0], arg, fid)
	if err != nil {
		return err
	}
	return m.emit(ctx, st, &f, ms)
}

// one returns an operation's single materialization as a list.
func one(m *cairn.Materialization, err error) ([]*cairn.Materialization, error) {
	if err != nil {
		return nil, err
	}
	return []*cairn.Materialization{m}, nil
}

func (s *store) surgery() surgery.Store {
	return surgery.Store{Sessions: s.sessions, Rounds: s.rounds, Lines: s.lines}
}

// emit writes materializations in the chosen format.
func (m *Main) emit(ctx context.Context, st *store, f *surgeryFlags, ms []*cairn.Materialization) error {
	if f.format == "claude" || f.format == "codex" {
		for _, mat := range ms {
			export := m.exportClaude
			if f.format == "codex" {
				export = m.exportCodex
			}
			e, err := export(ctx, st, f, mat)
			if err != nil {
				return err
			}
			label := mat.Operation
			if mat.Label != "" {
				label += " · " + mat.Label
			}
			fmt.Fprintf(m.Stdout, "%s: wrote %s\n  %d lines · %d rounds in full · %d as index lines · parent %s\n  resume: %s\n",
				label, e.Path, e.Lines, len(mat.FullPieces()), len(mat.IndexRounds()), strings.Join(e.Parents, " + "), e.Resume)
			if c := e.Crossed; c != (crossing{}) {
				fmt.Fprintf(m.Stdout, "  crossed from %s: %d tool calls mapped, %d as text, %d thinking blocks dropped\n",
					c.From, c.Mapped, c.AsText, c.ThinkingDropped)
			}
		}
		return nil
	}
	w := bufio.NewWriterSize(m.Stdout, 1<<20)
	if f.out != "" {
		file, err := os.Create(f.out)
		if err != nil {
			return err
		}
		defer file.Close()
		w = bufio.NewWriterSize(file, 1<<20)
	}
	for i, mat := range ms {
		var err error
		if f.format == "json" {
			err = export.MaterializationJSON(w, mat)
		} else {
			if i > 0 {
				fmt.Fprint(w, "\n---\n\n")
			}
			err = export.MaterializationMarkdown(w, mat)
		}
		if err != nil {
			return err
		}
	}
	return w.Flush()
}

// An exported session: where it was written and how to resume it.
type exported struct {
	ID      string
	Path    string
	Cwd     string
	Resume  string
	Lines   int
	Parents []string
	Crossed crossing // what a session of another harness lost on the way
}

// A crossing counts what did not cross from one harness to another.
type crossing struct {
	From                            string
	Mapped, AsText, ThinkingDropped int
}

// exportClaude writes one materialization as a Claude Code session and
// inscribes it (so it is searchable) with its lineage. The viewer's
// actions call it too.
func (m *Main) exportClaude(ctx context.Context, st *store, f *surgeryFlags, mat *cairn.Materialization) (*exported, error) {
	cwd := f.cwd
	if cwd == "" && len(mat.Sources) > 0 {
		cwd = mat.Sources[0].Project
	}
	if cwd == "" {
		return nil, usageError("the source session records no working directory: give --cwd")
	}
	id := claudecode.NewUUID()
	x := &claudecode.Exporter{SessionID: id, Cwd: cwd, Summary: surgery.Summary(mat), Blocks: blocksAt(mat.Fidelity, mat)}
	lines, err := x.Lines(mat)
	if err != nil {
		return nil, err
	}
	dir := f.out
	if dir == "" {
		projects, err := m.claudeProjectsDir()
		if err != nil {
			return nil, err
		}
		dir = filepath.Join(projects, claudecode.ProjectDirName(cwd))
	}
	path := filepath.Join(dir, id+".jsonl")
	if err := writeAtomic(path, lines); err != nil {
		return nil, err
	}
	im := &inscribe.Importer{Store: struct {
		cairn.InscriptionStore
		cairn.LineStore
	}{st.inscription, st.lines}, Format: transcripts{}}
	if fr, problems := im.ImportFile(ctx, path); fr.Error != "" {
		return nil, fmt.Errorf("register %s: %s", path, fr.Error)
	} else if len(problems) > 0 {
		return nil, fmt.Errorf("register %s: line %d: %s", path, problems[0].Line, problems[0].Reason)
	}
	var parents []string
	for _, s := range mat.Sources {
		parents = append(parents, s.ID)
	}
	if err := st.sessions.SetLineage(ctx, id, cairn.LineageSurgery, parents, mat.Operation); err != nil {
		return nil, err
	}
	e := &exported{ID: id, Path: path, Cwd: cwd, Resume: "cd " + shellQuote(cwd) + " && claude --resume " + id,
		Lines: len(lines), Parents: parents}
	if c := x.Crossed; c != (claudecode.Crossing{}) {
		e.Crossed = crossing{From: cairn.AgentCodex, Mapped: c.CallsMapped, AsText: c.CallsAsText, ThinkingDropped: c.ThinkingDropped}
	}
	return e, nil
}

// claudeProjectsDir is where Claude Code keeps sessions: $CLAUDE_CONFIG_DIR/projects,
// else ~/.claude/projects.
func (m *Main) claudeProjectsDir() (string, error) {
	if dir := m.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "projects"), nil
	}
	home := m.Getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", err
		}
	}
	return claudecode.ProjectsDir(home), nil
}

// writeAtomic writes lines to a temporary file beside path and renames it,
// so the client never sees half a session.
func writeAtomic(path string, lines [][]byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cairn-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	for _, l := range lines {
		if _, err := w.Write(l); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
