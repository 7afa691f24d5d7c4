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
             command to resume it is printed. The client only finds a session
             in its project folder: for --out DIR elsewhere the command moves
             the file there first (for DIR = CONFIG/projects/<folder> it sets
             CLAUDE_CONFIG_DIR=CONFIG instead). A --cwd or source folder that
             does not exist is named in a warning: the command cds there.
  markdown   for people, on standard output (or --out FILE)
  json       for programs, on standard output (or --out FILE)

Fidelity of rounds in full (--fidelity): full (default), partial (thinking as
a reference, tool calls and results summarized), text (user and assistant text
only), or per kind: thinking=full|reference|omit,tool_use=full|summary|omit,
tool_result=full|summary|omit. User and assistant text are always kept.`

func (f *surgeryFlags) register(fs *flag.FlagSet, format string) {
	f.storeFlags.register(fs, false)
	fs.StringVar(&f.fidelity, "fidelity", "full", "fidelity of rounds in full: full | partial | text | thinking=…,tool_use=…,tool_result=…")
	fs.StringVar(&f.format, "format", format, "claude | markdown | json")
	fs.StringVar(&f.out, "out", "", "claude: the folder to write the session to; markdown, json: the file")
	fs.StringVar(&f.cwd, "cwd", "", "claude: the working directory to resume in (default: the source session's)")
}

func (f *surgeryFlags) parse() (cairn.Fidelity, error) {
	switch f.format {
	case "claude", "markdown", "json":
	default:
		return cairn.Fidelity{}, usageError("--format must be claude, markdown or json, got %q", f.format)
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
	sst.LinesOnly = f.format == "claude"
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
	if f.format == "claude" {
		for _, mat := range ms {
			e, err := m.exportClaude(ctx, st, f, mat)
			if err != nil {
				return err
			}
			label := mat.Operation
			if mat.Label != "" {
				label += " · " + mat.Label
			}
			fmt.Fprintf(m.Stdout, "%s: wrote %s\n  %d lines · %d rounds in full · %d as index lines · parent %s\n  resume: %s\n",
				label, e.Path, e.Lines, len(mat.FullPieces()), len(mat.IndexRounds()), strings.Join(e.Parents, " + "), e.Resume)
			if e.Note != "" {
				fmt.Fprintf(m.Stdout, "  note: %s\n", e.Note)
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
	Note    string // what the user must know to resume it, if anything
	Lines   int
	Parents []string
}

// exportClaude writes one materialization as a Claude Code session and
// inscribes it (so it is searchable) with its lineage. The viewer's
// actions call it too.
func (m *Main) exportClaude(ctx context.Context, st *store, f *surgeryFlags, mat *cairn.Materialization) (*exported, error) {
	cwd, what := f.cwd, "--cwd"
	if cwd == "" && len(mat.Sources) > 0 {
		cwd, what = mat.Sources[0].Project, "the source session's folder"
	}
	if cwd == "" {
		return nil, usageError("the source session records no working directory: give --cwd")
	}
	if info, err := os.Stat(cwd); err != nil || !info.IsDir() {
		fmt.Fprintf(m.Stderr, "cairn: warning: %s %s does not exist: the resume command cds there; create it, or give --cwd a folder that exists\n", what, cwd)
	}
	id := claudecode.NewUUID()
	x := &claudecode.Exporter{SessionID: id, Cwd: cwd, Summary: surgery.Summary(mat)}
	lines, err := x.Lines(mat)
	if err != nil {
		return nil, err
	}
	projects, err := m.claudeProjectsDir()
	if err != nil {
		return nil, err
	}
	home := filepath.Join(projects, claudecode.ProjectDirName(cwd)) // where the client looks
	dir := f.out
	if dir == "" {
		dir = home
	} else if !filepath.IsAbs(dir) {
		wd, err := m.Getwd()
		if err != nil {
			return nil, err
		}
		dir = filepath.Join(wd, dir)
	}
	path := filepath.Join(dir, id+".jsonl")
	if err := writeAtomic(path, lines); err != nil {
		return nil, err
	}
	im := &inscribe.Importer{Store: struct {
		cairn.InscriptionStore
		cairn.LineStore
	}{st.inscription, st.lines}, Format: claudecode.Format{}}
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
	e := &exported{ID: id, Path: path, Cwd: cwd, Lines: len(lines), Parents: parents}
	e.Resume, e.Note = resumeCommand(path, home, cwd, id)
	return e, nil
}

// resumeCommand returns the command that resumes the session id written at
// path, for a client that looks for it in the folder home, and a note when
// the file is not where the client looks.
func resumeCommand(path, home, cwd, id string) (cmd, note string) {
	dir := filepath.Dir(path)
	resume := "cd " + shellQuote(cwd) + " && claude --resume " + id
	if samePath(dir, home) {
		return resume, ""
	}
	if config := filepath.Dir(filepath.Dir(dir)); filepath.Base(dir) == filepath.Base(home) && filepath.Base(filepath.Dir(dir)) == "projects" {
		return "cd " + shellQuote(cwd) + " && CLAUDE_CONFIG_DIR=" + shellQuote(config) + " claude --resume " + id,
			"written under " + config + ", which the client reads only as its config folder (CLAUDE_CONFIG_DIR, as above; it holds no login of yours)"
	}
	return "mkdir -p " + shellQuote(home) + " && mv " + shellQuote(path) + " " + shellQuote(home) + "/ && " + resume,
		"the client finds a session only in " + home + ": the command moves the file there first"
}

// samePath reports whether a and b name the same folder.
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
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
