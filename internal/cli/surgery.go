package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/surgery"
)

// surgeryFlags are the flags every surgical command shares: where the
// store is, the fidelity of full rounds, and what to write.
type surgeryFlags struct {
	storeFlags
	fidelity string
	format   string
	out      string
	cwd      string
	redact   bool
	budget   string
	before   string

	geminiDocument bool
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
  codex      a Codex CLI rollout the real client resumes: written under
             $CODEX_HOME/sessions/YYYY/MM/DD/ (default ~/.codex), or to --out
             DIR; a fresh thread id; registered with lineage "surgery"; the
             command to resume it is printed. A Claude Code session crosses:
             shell, reads and edits become Codex's calls, other calls text,
             thinking is dropped and counted.
  gemini     a Gemini CLI session the real client resumes (gemini --resume
             ID): written to the project's chats folder under
             $GEMINI_CLI_HOME/.gemini/tmp/ (default ~/.gemini), the one
             projects.json names for --cwd (default: the source session's
             folder), else tmp/<sha256 of the folder>, which the client takes
             over the first time it runs there; or to --out DIR. JSONL, as
             0.4x and later read; --gemini-json writes the .json document of
             older releases. The file's name ends with the id's last eight
             digits, not its first eight: Gemini CLI 0.61, resuming a session
             a minute or more after its file was written, writes a stub named
             by the first eight, and its cleanup at the next start deletes
             every file named so, with the work continued in it. A session
             an older cairn wrote (session-…-<first eight of the id>.jsonl):
             export it again before resuming it, or set
             general.sessionRetention.enabled to false in the client's
             settings.json. Registered with lineage "surgery". Claude Code and
             Codex sessions cross: shell commands, reads, edits and writes
             become run_shell_command, read_file, replace and write_file,
             other calls text, thinking is dropped and counted.
  opencode   a session in opencode's store ($XDG_DATA_HOME/opencode/opencode.db,
             default ~/.local/share/opencode; or the data folder --out DIR)
             that the real client continues with --session: one transaction,
             fresh ids of opencode's own form, the provider and model of the
             store's newest reply; registered with lineage "surgery"; the
             command to resume it is printed. A Claude Code or Codex session
             crosses: shell, reads, edits and writes become opencode's bash,
             read, edit and write, other calls text, thinking is dropped;
             each is counted.
  pi         a new pi session file (format 3) the real pi resumes with
             pi --session PATH: written to the working directory's folder
             under $PI_CODING_AGENT_DIR/sessions (default ~/.pi/agent), or to
             --out DIR; a fresh id; for a pi source, its file as
             parentSession, as pi's own forks name theirs; registered with
             lineage "surgery". A new file, not a branch in the source's
             tree: pi appends to the file it runs on, from its own leaf.
             Thinking is dropped and counted (pi sends it back only with a
             signature). Other harnesses' sessions cross: shell commands,
             reads, edits and writes become pi's bash, read, edit and write,
             other calls text.
  markdown   for people, on standard output (or --out FILE)
  json       for programs, on standard output (or --out FILE)

Fidelity of rounds in full (--fidelity): full (default), partial (thinking as
a reference, tool calls and results summarized), text (user and assistant text
only), or per kind: thinking=full|reference|omit,tool_use=full|summary|omit,
tool_result=full|summary|omit. User and assistant text are always kept.

Size (--budget TOKENS): every output is estimated in the tokens the client
sends when it resumes it (its own system prompt and tools included: Claude
Code's read from the session, about 45000; Codex's, for --format codex, about
16000; Gemini CLI's, for --format gemini, about 20000; opencode's, for --format
opencode, about 19000), printed, and fitted in the budget. The default
budget: ` + surgery.BudgetRule + `.
Over budget, rounds degrade oldest first: full → their prompt and recent steps
in full, the older steps left to the index → partial fidelity → a row of the
index table; the latest prompt and the last answer always stay. Nothing is
ever left out: every step not in full is named in the summary, one line a
step where the budget allows, runs of the oldest steps (7.3-7.9) where it
does not, and "cairn inject SESSION REF" prints any of them. Operations that
continue a session also keep a ledger verbatim: the prompts, the latest todo
list, errors not followed by a success, files changed, commands with their
outcome, what the agent said. If even the latest prompt and answer do not
fit, nothing is written and the figures are printed. --budget 0 keeps every
round the operation chose.

Compactions (--before-compaction): when Claude Code compacted the session,
it sends only its own summary and what follows the boundary. A kept round
across the boundary keeps its post-boundary steps; before it, summary (the
default) carries the client's summary and names the earlier steps in the
index like any other (in runs where the budget is short), index gives each of
them a line of its own whatever the budget, full brings the compacted content
back as stored.`

func (f *surgeryFlags) register(fs *flag.FlagSet, format string) {
	f.storeFlags.register(fs, false)
	fs.StringVar(&f.fidelity, "fidelity", "full", "fidelity of rounds in full: full | partial | text | thinking=…,tool_use=…,tool_result=…")
	fs.StringVar(&f.format, "format", format, "claude | codex | gemini | opencode | pi | markdown | json")
	fs.StringVar(&f.out, "out", "", "claude, codex, gemini, pi: the folder to write the session to; opencode: its data folder; markdown, json: the file")
	fs.StringVar(&f.cwd, "cwd", "", "claude, codex, gemini, opencode, pi: the working directory to resume in (default: the source session's)")
	fs.BoolVar(&f.geminiDocument, "gemini-json", false, "gemini: write the one .json document Gemini CLI before 0.4x reads, not JSONL")
	fs.BoolVar(&f.redact, "redact", false, redactUsage)
	fs.StringVar(&f.budget, "budget", "", "the most tokens the client may send for the output; 0: no budget (default: "+surgery.BudgetRule+")")
	fs.StringVar(&f.before, "before-compaction", "summary", "what to keep from before the client's last compaction: full | index | summary")
}

// limits reads --budget and --before-compaction; --format says which
// client resumes the output, whose own overhead the budget counts.
func (f *surgeryFlags) limits() (surgery.Limits, error) {
	l := surgery.Limits{Budget: surgery.AutoBudget}
	switch f.format {
	case "codex":
		l.Client = cairn.AgentCodex
	case "opencode":
		l.Client = cairn.AgentOpencode
	case "gemini":
		l.Client = cairn.AgentGemini
	case "pi":
		l.Client = cairn.AgentPi
	}
	if f.budget != "" {
		n, err := strconv.ParseInt(strings.ReplaceAll(f.budget, "_", ""), 10, 64)
		if err != nil || n < 0 {
			return l, usageError("--budget must be a number of tokens (0: no budget), got %q", f.budget)
		}
		l.Budget = n
	}
	before, err := surgery.ParseBeforeCompaction(f.before)
	if err != nil {
		return l, usageError("--before-compaction must be full, index or summary, got %q", f.before)
	}
	l.BeforeCompaction = before
	return l, nil
}

func (f *surgeryFlags) parse() (cairn.Fidelity, error) {
	switch f.format {
	case "claude", "codex", "gemini", "opencode", "pi", "markdown", "json":
	default:
		return cairn.Fidelity{}, usageError("--format must be claude, codex, gemini, opencode, pi, markdown or json, got %q", f.format)
	}
	return cairn.ParseFidelity(f.fidelity)
}

// native reports whether the format is a session a client resumes.
func (f *surgeryFlags) native() bool {
	return f.format == "claude" || f.format == "codex" || f.format == "gemini" || f.format == "opencode" || f.format == "pi"
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
	limits, err := f.limits()
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
	sst.LinesOnly = f.native()
	sst.Limits = limits
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
	return surgery.Store{Sessions: s.sessions, Rounds: s.rounds, Lines: s.lines, Engagements: s.engagements, OffPath: pi.SessionOffPath(s.lines)}
}

// emit writes materializations in the chosen format.
func (m *Main) emit(ctx context.Context, st *store, f *surgeryFlags, ms []*cairn.Materialization) error {
	if f.native() {
		for _, mat := range ms {
			export := m.exportClaude
			switch f.format {
			case "codex":
				export = m.exportCodex
			case "opencode":
				export = m.exportOpencode
			case "gemini":
				export = m.exportGemini
			case "pi":
				export = m.exportPi
			}
			e, err := export(ctx, st, f, mat)
			if err != nil {
				return err
			}
			label := mat.Operation
			if mat.Label != "" {
				label += " · " + mat.Label
			}
			fmt.Fprintf(m.Stdout, "%s: wrote %s\n  %d lines · %d rounds in full · %d as index lines%s · parent %s\n  size: %s\n  resume: %s\n",
				label, e.Path, e.Lines, len(mat.FullPieces()), len(mat.IndexRounds()), droppedNote(mat), strings.Join(e.Parents, " + "), sizeNote(mat), e.Resume)
			if c := e.Crossed; c != (crossing{}) {
				fmt.Fprintf(m.Stdout, "  crossed from %s: %d tool calls mapped, %d as text, %d thinking blocks dropped\n",
					c.From, c.Mapped, c.AsText, c.ThinkingDropped)
			}
			if e.Note != "" {
				fmt.Fprintf(m.Stdout, "  note: %s\n", e.Note)
			}
		}
		return nil
	}
	var dst io.Writer = m.Stdout
	if f.out != "" {
		file, err := os.Create(f.out)
		if err != nil {
			return err
		}
		defer file.Close()
		dst = file
	}
	var found []redact.Finding
	rw, err := redactingWriter(f.redact, dst, &found)
	if err != nil {
		return err
	}
	defer func() {
		if len(found) > 0 {
			fmt.Fprintf(m.Stderr, "redacted %s\n", countRules(found))
		}
	}()
	defer rw.Close()
	w := bufio.NewWriterSize(rw, 1<<20)
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
	if err := w.Flush(); err != nil {
		return err
	}
	return rw.Close()
}

// sizeNote says what the client will send for mat, against its budget.
func sizeNote(mat *cairn.Materialization) string {
	s := fmt.Sprintf("~%d tokens the client sends", mat.Tokens)
	if mat.Budget > 0 {
		s += fmt.Sprintf(" (budget %d, %d%%)", mat.Budget, 100*mat.Tokens/mat.Budget)
	} else {
		s += " (no budget)"
	}
	return s
}

// droppedNote says how many rounds the output names only in runs of
// rounds, too many for a row each: named still, by the runs' lines.
func droppedNote(mat *cairn.Materialization) string {
	n := surgery.RunRounds(mat)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" · %d rounds named only in runs of rounds", n)
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
	Crossed crossing // what a session of another harness lost on the way
}

// A crossing counts what did not cross from one harness to another.
type crossing struct {
	From                            string
	Mapped, AsText, ThinkingDropped int
}

// crossedInto is what c counts of mat's rounds of harnesses other than
// own, which an export for own took in: nothing when c counts nothing.
func crossedInto(mat *cairn.Materialization, own string, c cairn.Crossing) crossing {
	if c == (cairn.Crossing{}) {
		return crossing{}
	}
	return crossing{From: foreignAgent(mat, own), Mapped: c.CallsMapped, AsText: c.CallsAsText, ThinkingDropped: c.ThinkingDropped}
}

// resumeCwd is the folder an output resumes in: --cwd, else the source
// session's. One that does not exist is named in a warning: the resume
// command cds there.
func (m *Main) resumeCwd(f *surgeryFlags, mat *cairn.Materialization) (string, error) {
	cwd, what := f.cwd, "--cwd"
	if cwd == "" && len(mat.Sources) > 0 {
		cwd, what = mat.Sources[0].Project, "the source session's folder"
	}
	if cwd == "" {
		return "", usageError("the source session records no working directory: give --cwd")
	}
	if info, err := os.Stat(cwd); err != nil || !info.IsDir() {
		fmt.Fprintf(m.Stderr, "cairn: warning: %s %s does not exist: the resume command cds there; create it, or give --cwd a folder that exists\n", what, cwd)
	}
	return cwd, nil
}

// exportClaude writes one materialization as a Claude Code session and
// inscribes it (so it is searchable) with its lineage. The viewer's
// actions call it too.
func (m *Main) exportClaude(ctx context.Context, st *store, f *surgeryFlags, mat *cairn.Materialization) (*exported, error) {
	cwd, err := m.resumeCwd(f, mat)
	if err != nil {
		return nil, err
	}
	id := claudecode.NewUUID()
	x := &claudecode.Exporter{SessionID: id, Cwd: cwd, Summary: surgery.Summary(mat), Blocks: blocksAt(mat.Fidelity, mat)}
	lines, err := x.Lines(mat)
	if err != nil {
		return nil, err
	}
	projects, err := m.claudeProjectsDir()
	if err != nil {
		return nil, err
	}
	home := filepath.Join(projects, claudecode.ProjectDirName(cwd)) // where the client looks
	path, n, parents, err := m.writeExport(ctx, st, f, mat, lines, home, id+".jsonl", id)
	if err != nil {
		return nil, err
	}
	e := &exported{ID: id, Path: path, Cwd: cwd, Lines: n, Parents: parents}
	e.Resume, e.Note = resumeCommand(path, home, cwd, id)
	e.Crossed = crossedInto(mat, cairn.AgentClaudeCode, x.Crossed)
	return e, nil
}

// resumeCommand returns the command that resumes the session id written at
// path, for a client that looks for it in the folder home, and a note when
// the file is not where the client looks.
func resumeCommand(path, home, cwd, id string) (cmd, note string) {
	dir := filepath.Dir(path)
	resume := "cd " + cairn.ShellQuote(cwd) + " && claude --resume " + id
	if samePath(dir, home) {
		return resume, ""
	}
	if config := filepath.Dir(filepath.Dir(dir)); filepath.Base(dir) == filepath.Base(home) && filepath.Base(filepath.Dir(dir)) == "projects" {
		return "cd " + cairn.ShellQuote(cwd) + " && CLAUDE_CONFIG_DIR=" + cairn.ShellQuote(config) + " claude --resume " + id,
			"written under " + config + ", which the client reads only as its config folder (CLAUDE_CONFIG_DIR, as above; it holds no login of yours)"
	}
	return "mkdir -p " + cairn.ShellQuote(home) + " && mv " + cairn.ShellQuote(path) + " " + cairn.ShellQuote(home) + "/ && " + resume,
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

// outDir is the folder an export is written to: --out, relative to the
// working directory, else home, where the client looks for its sessions.
func (m *Main) outDir(f *surgeryFlags, home string) (string, error) {
	switch {
	case f.out == "":
		return home, nil
	case filepath.IsAbs(f.out):
		return f.out, nil
	}
	wd, err := m.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, f.out), nil
}

// writeAtomic writes lines to a temporary file beside path and renames it,
// so the client never sees half a session; the file gets perm.
func writeAtomic(path string, lines [][]byte, perm os.FileMode) error {
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
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// lineageOf is the lineage of what an operation wrote: revive for revive,
// surgery for every other operation.
func lineageOf(mat *cairn.Materialization) string {
	if mat.Operation == cairn.OpRevive {
		return cairn.LineageRevive
	}
	return cairn.LineageSurgery
}
