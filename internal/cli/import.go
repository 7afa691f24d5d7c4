package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/pi"

	"golang.org/x/term"
)

func (m *Main) runImport(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("import", "[flags] [PATH...]", `
Inscribe Claude Code transcripts, Codex CLI rollouts, Gemini CLI sessions,
opencode sessions and pi sessions into the store. PATH is a .jsonl file (or a Gemini CLI
session-*.json) or a folder searched for them, or opencode's data folder or
its opencode.db (any SQLite file is read as opencode's store);
with no PATH, every harness's folder that exists: ~/.claude/projects,
$CODEX_HOME/sessions (default ~/.codex/sessions),
$GEMINI_CLI_HOME/.gemini/tmp (default ~/.gemini/tmp),
$XDG_DATA_HOME/opencode (default ~/.local/share/opencode) and pi's
$PI_CODING_AGENT_DIR/sessions (default ~/.pi/agent/sessions, and
$PI_CODING_AGENT_SESSION_DIR when set). A file whose first line is a
{"type":"session"} header with an id and a cwd is read as pi's. A file is read as
Codex when its name is rollout-…-<uuid>.jsonl or its first line is a
session_meta, as Gemini CLI when its name is session-…-<id>.json[l] in a
chats folder or its first record names a sessionId and projectHash. An older
Gemini CLI's session-*.json, rewritten whole at every message, is inscribed
again as a new generation each time it changes.

opencode keeps sessions as rows of its SQLite store (1.2 and later) or as
JSON files (1.1 and earlier), updated in place. cairn reads them read-only
and appends each session's documents (the session, each finished message
and its parts, a changed one again) to a log of its own, one JSON line per
document, beside the store (.cairn/opencode/<session>.jsonl), which it then
imports like any transcript; a reply still being written waits for the
next import. A store that does not read (damaged, cut short, another
program's) or a session whose file opencode was rewriting is named on
stderr and left for a later import; everything else is imported, and the
command exits 1. In a workspace with an active engagement (cairn
engagement start) or a frame in progress, the new rounds are tagged with
them.

A symlink in a folder is followed only to a file inside that folder, and
read once; one that leads out of it, a FIFO or a device is skipped and
named on stderr.

Every line is kept byte for byte; rounds, blocks and the search index are
built over them. Run it as often as you like: a file already imported adds
nothing, a file that grew is read from where the last import stopped, and a
file that was rewritten is inscribed again as a new generation. Lines that
cannot be parsed are kept raw and reported with file and line. A store with
a keep setting (cairn prune --keep) skips files it let go and drops the
sessions older than the setting after the import.

Examples:
  cairn import
  cairn import ~/.claude/projects/-home-me-src-app
  cairn import --json session.jsonl`)
	sf.register(fs, true)
	quiet := fs.Bool("q", false, "no progress and no problem lines, only the summary")
	only := fs.String("session", "", "with an opencode data folder: import only this session of it (what cairn's opencode plugin runs)")
	red := fs.Bool("redact", false, "store lines with their secrets replaced by [REDACTED:rule] (gitleaks' rules and cairn's), for a shared store; the transcript files are unchanged")
	err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	paths := fs.Args()
	if len(paths) == 0 {
		var err error
		if paths, err = m.defaultTranscriptDirs(); err != nil {
			return err
		}
	}
	paths, unread, err := m.mirrorOpencode(ctx, sf.store, paths, *only)
	if err != nil {
		return err
	}
	for _, e := range unread {
		fmt.Fprintln(m.Stderr, e)
	}
	defer m.batchGC()()
	defer m.batchProcs()()
	st, err := m.openStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()

	im := &inscribe.Importer{Store: importStore{st.inscription, st.lines}, Format: transcripts{}, Keep: st.keep, Now: m.now}
	if im.Redact, err = lineRedactor(*red); err != nil {
		return err
	}
	// In a workspace, new rounds are tagged with the active engagement and
	// frame, as the hooks tag them.
	switch w, err := m.openWorkspace(wsFlags{}); cairn.ErrorCode(err) {
	case "":
		t, err := m.activeTagsSince(ctx, w, st)
		if err != nil {
			return err
		}
		if t.EngagementID != "" || t.FrameID != "" {
			im.Tag = func(*cairn.Session) (string, string) { return t.EngagementID, t.FrameID }
			im.EngagementSince, im.FrameSince = t.EngagementSince, t.FrameSince
		}
	case cairn.ENOTFOUND:
	default:
		return err
	}
	if !*quiet && !sf.json && isTerminal(m.Stderr) {
		im.Progress = progressBar(m.Stderr)
	}
	start := time.Now()
	rep, err := im.Import(ctx, paths)
	if im.Progress != nil {
		fmt.Fprint(m.Stderr, "\r\033[K")
	}
	if err != nil && rep == nil {
		return err
	}
	if sf.json {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		if e := enc.Encode(rep); e != nil {
			return e
		}
	} else {
		if !*quiet {
			for _, p := range rep.Problems {
				fmt.Fprintln(m.Stderr, p)
			}
			for _, f := range rep.Files {
				if f.Error != "" && f.Status != inscribe.StatusDropped {
					fmt.Fprintf(m.Stderr, "%s: %s\n", f.Path, f.Error)
				}
				if f.Note != "" {
					fmt.Fprintf(m.Stderr, "%s: %s\n", f.Path, f.Note)
				}
			}
		}
		fmt.Fprintf(m.Stdout, "%s (%.2fs)\n", rep.Summary(), time.Since(start).Seconds())
	}
	if err != nil {
		return err
	}
	if err := m.applyKeep(ctx, st, sf.json); err != nil {
		return err
	}
	if rep.Failed > 0 {
		return fmt.Errorf("%d of %d files failed; what they held before is intact", rep.Failed, len(rep.Files))
	}
	if len(unread) > 0 {
		return fmt.Errorf("%s could not be read (named above); everything else was imported", plural(len(unread), "opencode source"))
	}
	return nil
}

// applyKeep drops the sessions the store's keep setting lets go, after an
// import, and says so unless the output is JSON.
func (m *Main) applyKeep(ctx context.Context, st *store, quiet bool) error {
	days, err := st.keep.KeepDays(ctx)
	if err != nil || days == 0 {
		return err
	}
	now := m.now()
	cutoff := cairn.KeepCutoff(now, days)
	dropped, err := inscribe.Prune(ctx, st.sessions, st.keep, cutoff, now, false)
	if err != nil {
		return err
	}
	if len(dropped) > 0 && !quiet {
		fmt.Fprintf(m.Stdout, "Dropped %s last active before %s (the store keeps %s; cairn prune --keep changes it).\n",
			plural(len(dropped), "session"), cutoff.UTC().Format(time.DateOnly), plural(days, "day"))
	}
	return nil
}

type importStore struct {
	cairn.InscriptionStore
	cairn.LineStore
}

// Sweep implements [inscribe.Sweeper].
func (s importStore) Sweep(ctx context.Context) error { return sweep(ctx, s.InscriptionStore) }

// sweep sweeps what a killed writer left in st, when its store keeps any
// ([inscribe.Sweeper]): the step import and reindex run first.
func sweep(ctx context.Context, st cairn.InscriptionStore) error {
	if sw, ok := st.(inscribe.Sweeper); ok {
		return sw.Sweep(ctx)
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressBar redraws one status line at most ten times a second.
func progressBar(w io.Writer) inscribe.Progress {
	var last time.Time
	start := time.Now()
	return func(path string, done, total int64) {
		if time.Since(last) < 100*time.Millisecond && done < total {
			return
		}
		last = time.Now()
		pct := 100.0
		if total > 0 {
			pct = float64(done) * 100 / float64(total)
		}
		width := 30
		filled := int(pct / 100 * float64(width))
		bar := make([]byte, width)
		for i := range bar {
			bar[i] = ' '
			if i < filled {
				bar[i] = '#'
			}
		}
		rate := float64(done) / 1e6 / max(time.Since(start).Seconds(), 1e-3)
		fmt.Fprintf(w, "\r\033[Kimporting [%s] %3.0f%% %.1f/%.1f MB %.0f MB/s", bar, pct, float64(done)/1e6, float64(total)/1e6, rate)
	}
}

// defaultTranscriptDirs returns the folders where the harnesses keep their
// transcripts and that exist: Claude Code's projects folder, Codex's
// sessions folder, Gemini CLI's tmp folder, opencode's data folder, pi's
// sessions folders. Returns an error naming them
// all when none exists.
func (m *Main) defaultTranscriptDirs() ([]string, error) {
	home := m.Getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return nil, err
		}
	}
	claude, err := m.claudeProjectsDir()
	if err != nil {
		return nil, err
	}
	codexDir, geminiDir := codex.SessionsDir(codex.Home(m.Getenv, home)), gemini.TmpDir(gemini.Home(m.Getenv, home))
	var dirs []string
	oc := m.opencodeDataDir()
	if opencode.IsDataDir(oc) {
		dirs = append(dirs, oc)
	}
	piDirs := pi.SessionsDirs(m.Getenv, home)
	for _, dir := range append([]string{claude, codexDir, geminiDir}, piDirs...) {
		if _, err := os.Stat(dir); err == nil {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no transcripts at %s (Claude Code), %s (Codex), %s (Gemini CLI), %s (opencode) or %s (pi): pass the files or folders to import",
			claude, codexDir, geminiDir, oc, piDirs[0])
	}
	return dirs, nil
}

// mirrorOpencode replaces each opencode data folder among paths, and each
// store file of one (opencode.IsStore: opencode.db, or any SQLite
// database), by the logs of its sessions, brought up to date
// (opencode.Mirror). With only, just that session of each is mirrored.
// What of them does not read is returned as unread, an
// *opencode.Unreadable each naming the file, and the rest is mirrored: one
// source's damage never keeps another's sessions out of the import. err
// is what stops the import (a usage error, a session --session names that
// is not there, the context, the log folder).
func (m *Main) mirrorOpencode(ctx context.Context, storeFlag string, paths []string, only string) (out []string, unread []error, err error) {
	found := false
	for _, p := range paths {
		if !opencode.IsDataDir(p) && !opencode.IsStore(p) {
			out = append(out, p)
			continue
		}
		found = true
		dir, err := m.opencodeLogDir(storeFlag)
		if err != nil {
			return nil, nil, err
		}
		var logs []string
		if only != "" {
			var log string
			if log, err = opencode.MirrorSession(ctx, p, dir, only); log != "" {
				logs = []string{log}
			}
		} else {
			logs, err = opencode.Mirror(ctx, p, dir)
		}
		out = append(out, logs...)
		if err == nil {
			continue
		}
		for _, e := range unwrapJoined(err) {
			if _, ok := e.(*opencode.Unreadable); !ok {
				return nil, nil, err
			}
			unread = append(unread, e)
		}
	}
	if only != "" && !found {
		return nil, nil, usageError("--session needs an opencode data folder among the paths")
	}
	return out, unread, nil
}

// unwrapJoined returns the errors errors.Join joined into err, or err.
func unwrapJoined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// opencodeLogDir is where the logs of opencode sessions are kept: an
// opencode folder beside a store file, else $XDG_STATE_HOME/cairn/opencode
// (default ~/.local/state/cairn/opencode) for a PostgreSQL store.
func (m *Main) opencodeLogDir(storeFlag string) (string, error) {
	loc, err := m.storePath(storeFlag)
	if err != nil {
		return "", err
	}
	if !isPostgres(loc) {
		return filepath.Join(filepath.Dir(loc), "opencode"), nil
	}
	if d := m.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "cairn", "opencode"), nil
	}
	home := m.Getenv("HOME")
	if home == "" {
		if home, err = os.UserHomeDir(); err != nil {
			return "", err
		}
	}
	return filepath.Join(home, ".local", "state", "cairn", "opencode"), nil
}
