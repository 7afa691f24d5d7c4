package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"cairn"
	"cairn/codex"
	"cairn/gemini"
	"cairn/inscribe"

	"golang.org/x/term"
)

func (m *Main) runImport(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("import", "[flags] [PATH...]", `
Inscribe Claude Code transcripts, Codex CLI rollouts and Gemini CLI sessions
into the store. PATH is a .jsonl file (or a Gemini CLI session-*.json) or a
folder searched for them; with no PATH, every harness's folder:
~/.claude/projects, $CODEX_HOME/sessions (default ~/.codex/sessions) and
$GEMINI_CLI_HOME/.gemini/tmp (default ~/.gemini/tmp). A file is read as
Codex when its name is rollout-…-<uuid>.jsonl or its first line is a
session_meta, as Gemini CLI when its name is session-…-<id>.json[l] in a
chats folder or its first record names a sessionId and projectHash. An older
Gemini CLI's session-*.json, rewritten whole at every message, is inscribed
again as a new generation each time it changes. In a workspace
with an active engagement (cairn engagement start) or a frame in progress,
the new rounds are tagged with them.

A symlink in a folder is followed only to a file inside that folder, and
read once; one that leads out of it, a FIFO or a device is skipped and
named on stderr.

Every line is kept byte for byte; rounds, blocks and the search index are
built over them. Run it as often as you like: a file already imported adds
nothing, a file that grew is read from where the last import stopped, and a
file that was rewritten is inscribed again as a new generation. Lines that
cannot be parsed are kept raw and reported with file and line.

Examples:
  cairn import
  cairn import ~/.claude/projects/-home-me-src-app
  cairn import --json session.jsonl`)
	sf.register(fs, true)
	quiet := fs.Bool("q", false, "no progress and no problem lines, only the summary")
	red := fs.Bool("redact", false, "store lines with their secrets replaced by [REDACTED:rule] (gitleaks' rules and cairn's), for a shared store; the transcript files are unchanged")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	paths := fs.Args()
	if len(paths) == 0 {
		var err error
		if paths, err = m.defaultTranscriptDirs(); err != nil {
			return err
		}
	}
	defer m.batchGC()()
	st, err := m.openStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()

	im := &inscribe.Importer{Store: importStore{st.inscription, st.lines}, Format: transcripts{}}
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
				if f.Error != "" {
					fmt.Fprintf(m.Stderr, "%s: %s\n", f.Path, f.Error)
				}
			}
		}
		fmt.Fprintf(m.Stdout, "%s (%.2fs)\n", rep.Summary(), time.Since(start).Seconds())
	}
	if err != nil {
		return err
	}
	if rep.Failed > 0 {
		return fmt.Errorf("%d of %d files failed; what they held before is intact", rep.Failed, len(rep.Files))
	}
	return nil
}

type importStore struct {
	cairn.InscriptionStore
	cairn.LineStore
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
// sessions folder, Gemini CLI's tmp folder. Returns an error naming them
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
	for _, dir := range []string{claude, codexDir, geminiDir} {
		if _, err := os.Stat(dir); err == nil {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no transcripts at %s (Claude Code), %s (Codex) or %s (Gemini CLI): pass the files or folders to import",
			claude, codexDir, geminiDir)
	}
	return dirs, nil
}
