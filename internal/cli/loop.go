package cli

import (
	"context"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/loop"
	"github.com/cairn-dev/cairn/workspace"
)

// liveLoop wires the live loop for w: the store the hook opens once
// ([Main.openStore]), the transcript folders, redaction, the export of a
// revived session and the mission's files. w may be nil (outside a
// workspace: the status line, advise).
func (m *Main) liveLoop(w *workspace.Workspace) (*loop.Loop, error) {
	run, err := loop.ExhaustionRunOf(m.Getenv)
	if err != nil {
		return nil, err
	}
	l := &loop.Loop{Workspace: w, Owner: m.Getenv("CAIRN_AGENT"), Now: m.now, Getenv: m.Getenv,
		Folders: m.transcriptDirs(), Warn: m.Stderr, ExhaustionRun: run}
	if wd, err := m.Getwd(); err == nil {
		l.Wd = wd
	}
	// $CAIRN_REDACT: every hook stores lines with secrets replaced (a
	// shared store).
	if l.Redact, err = lineRedactor(m.Getenv("CAIRN_REDACT") != ""); err != nil {
		return nil, err
	}
	// A hook's store is opened once and closed by runHook; a borrowed
	// one's Close does nothing.
	var held func() *store
	l.Open, held = m.storeOnce()
	l.Export = func(ctx context.Context, _ *loop.Stores, mat *cairn.Materialization, dir, cwd string) (string, error) {
		e, err := m.exportClaude(ctx, held(), &surgeryFlags{out: dir, cwd: cwd}, mat)
		if err != nil {
			return "", err
		}
		return e.Resume, nil
	}
	l.SyncMission = func(ctx context.Context, _ *loop.Stores) error {
		_, err := m.syncMission(ctx, held(), true)
		return err
	}
	return l, nil
}

// storeOnce is a [loop.Loop]'s Open for the store the current folder
// names: opened when first asked for, the same one after, its frames read
// once until a write ([loop.FramesOnce]); held returns it, nil until then.
func (m *Main) storeOnce() (open func() (*loop.Stores, error), held func() *store) {
	var st *store
	var stores *loop.Stores
	open = func() (*loop.Stores, error) {
		if st == nil {
			opened, err := m.openStore("")
			if err != nil {
				return nil, err
			}
			st, stores = opened, opened.loop()
			stores.Frames = loop.FramesOnce(stores.Frames)
		}
		return stores, nil
	}
	return open, func() *store { return st }
}

// loop returns the stores the live loop reads and records in.
func (s *store) loop() *loop.Stores {
	return &loop.Stores{Sessions: s.sessions, Rounds: s.rounds, Lines: s.lines, Inscription: s.inscription,
		Frames: s.frames, Missions: s.missions, Engagements: s.engagements, Import: importStore{s.inscription, s.lines}}
}

// transcriptDirs returns the folders a client keeps transcripts in, the
// only ones a hook reads: Claude Code's projects folder under $HOME or
// $CLAUDE_CONFIG_DIR, and the folders $CAIRN_TRANSCRIPT_DIRS lists
// (separated by the path list separator).
func (m *Main) transcriptDirs() []string {
	var dirs []string
	if home := m.Getenv("HOME"); home != "" {
		dirs = append(dirs, claudecode.ProjectsDir(home))
	} else if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, claudecode.ProjectsDir(home))
	}
	if cfg := m.Getenv("CLAUDE_CONFIG_DIR"); cfg != "" {
		dirs = append(dirs, filepath.Join(cfg, "projects"))
	}
	if home := m.Getenv("HOME"); home != "" || m.Getenv("GEMINI_CLI_HOME") != "" {
		dirs = append(dirs, gemini.TmpDir(gemini.Home(m.Getenv, home)))
	}
	for _, d := range filepath.SplitList(m.Getenv("CAIRN_TRANSCRIPT_DIRS")) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// occupancy is [loop.Loop.Occupancy] for the commands that measure a
// session's context (advise, the status line); w may be nil.
func (m *Main) occupancy(w *workspace.Workspace, session, transcript string) (*cairn.Occupancy, error) {
	l := &loop.Loop{Workspace: w, Getenv: m.Getenv, Folders: m.transcriptDirs()}
	return l.Occupancy(session, transcript)
}

// window is [loop.Loop.Window]; w may be nil.
func (m *Main) window(w *workspace.Workspace, session, model string, tokens int64) cairn.Window {
	l := &loop.Loop{Workspace: w, Getenv: m.Getenv}
	return l.Window(session, model, tokens)
}

// activeTagsSince is what an import run by hand tags new rounds with
// ([loop.ActiveTags]).
func (m *Main) activeTagsSince(ctx context.Context, w *workspace.Workspace, st *store) (cairn.Inscription, error) {
	return loop.ActiveTags(ctx, w, st.frames, m.Getenv("CAIRN_AGENT"), m.now())
}

func shortID(id string) string        { return loop.ShortID(id) }
func clipLine(s string, n int) string { return loop.ClipLine(s, n) }
func thousands(n int64) string        { return loop.Thousands(n) }

// endHookStore ends the store a hook opened once ([Main.openStore]). In
// cairn's own process the exit ends it: closing SQLite's last connection
// checkpoints the WAL into the database file and syncs it, which took a
// Stop hook 15 to 28 ms of its 39 to 53 (hookbench, 1 GB store). Every
// commit is already in the WAL, which the next open reads back and
// SQLite's automatic checkpoint bounds (1,000 pages); a transaction the
// exit cuts short is rolled back as a kill's is. A test's Main, which
// shares the process, closes it.
func (m *Main) endHookStore() {
	if m.hookStore != nil && !m.ownsProcess {
		m.hookStore.Close()
	}
	m.hookStore = nil
}
