package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"cairn"
	"cairn/assemble"
	"cairn/claudecode"
	"cairn/gemini"
	"cairn/inscribe"
	"cairn/workspace"
)

// A hookError is a hook that failed. Claude Code treats exit code 2 as
// "block" and any other non-zero code as a non-blocking error that it
// shows the person and carries on from, so every hook failure exits 1.
type hookError struct{ err error }

func (e *hookError) Error() string { return e.err.Error() }
func (e *hookError) Unwrap() error { return e.err }

func (m *Main) runHook(ctx context.Context, args []string) error {
	fs := m.newFlagSet("hook", "EVENT < hook-input.json", `
Run as a Claude Code command hook: read the hook's JSON on stdin and act
on EVENT. "cairn install claude" registers these; you do not run them by
hand.

  SessionStart      print the assembled context (core, current frame and
                    stack, relay state, index) as additionalContext, within
                    Claude Code's 10,000 characters; the whole context goes
                    to .cairn/context/<session>.xml when it does not fit;
                    record the relay files' state, for SessionEnd's line
  UserPromptSubmit  add short lines to the prompt: when the context the
                    client holds has crossed a threshold of .cairn/config
                    (pressure = 70,85), the percentage, what advise
                    recommends (after inscribing the transcript, so that
                    advise sees all of it) and the command (when finished
                    frames hold a quarter of the context, the command that
                    resumes a revived session cairn prepared with them
                    collapsed); when a frame
                    operation is suggested (cairn suggest: size, area,
                    prompt, plan; once per frame and rule). It inscribes
                    nothing else: the prompt waits for it, and Stop
                    inscribes each turn as it ends
  Stop              inscribe the transcript's new bytes (and its
                    sub-agents'); new rounds are tagged with the active
                    engagement and frame; then the exhaustion check below
  PostToolUse, PostToolUseFailure
                    after each tool call: when the last Write/Edit calls are
                    3 in a row with no content (an agent out of context;
                    $CAIRN_EXHAUSTION_WRITES sets the count, 0 turns it
                    off), restart the mission's phase from its boundary
                    (cairn phase recover) with the files written so far,
                    write the core and index to
                    .cairn/context/<session>-recovery.xml and tell the
                    agent in one line
  PreCompact        inscribe everything before the compaction drops it;
                    when the client compacts by itself (auto: the context
                    ran out) also checkpoint, trace it and prepare a
                    revived session (finished frames collapsed when they
                    hold a quarter of the context), which SessionStart
                    then names
  SessionEnd        inscribe the rest, then checkpoint on exit (a line on
                    the current board, saying what the session changed:
                    decisions recorded, todos added, finished or blocked,
                    frames pushed and popped, files written; and an exit
                    move in the trace) and
                    sync: state.json names this session as the last one,
                    and what changed in the relay files is recorded
  PreToolUse        (Task|Agent only) record a hand-off in state.json: the
                    sub-agent's prompt, the parent session
  SubagentStart     name the sub-agent on its hand-off and give it the
                    relay context (cairn prime) and its hand-off id
  SubagentStop      record its last answer as the hand-off's result

A folder outside a cairn workspace gets nothing and exit 0. A hook that
fails prints one line on stderr and exits 1, which Claude Code reports and
carries on from; it never exits 2, which would block the agent.`)
	agent := fs.String("agent", "claude", "the client running the hook: claude, or gemini (Gemini CLI's events: "+strings.Join(gemini.HookEvents, ", ")+")")
	if err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err // a person asked; Claude Code never passes -h
		}
		return &hookError{err}
	}
	if *agent == "gemini" {
		return m.runGeminiHook(ctx, fs.Args())
	}
	if *agent != "claude" {
		return &hookError{fmt.Errorf("hook --agent must be claude or gemini, got %q", *agent)}
	}
	if fs.NArg() != 1 || !isHookEvent(fs.Arg(0)) {
		return &hookError{fmt.Errorf("hook takes one EVENT: %s", strings.Join(claudecode.HookEvents, ", "))}
	}
	event := fs.Arg(0)
	m.inHook = true
	defer func() {
		if m.hookStore != nil {
			m.hookStore.Close()
			m.hookStore = nil
		}
	}()
	if err := m.hook(ctx, event); err != nil {
		return &hookError{fmt.Errorf("hook %s: %s", event, strings.Join(strings.Fields(errorText(err)), " "))}
	}
	return nil
}

func isHookEvent(name string) bool {
	for _, e := range claudecode.HookEvents {
		if e == name {
			return true
		}
	}
	return false
}

func (m *Main) hook(ctx context.Context, event string) error {
	in, w, err := m.hookInput(event)
	if err != nil || w == nil {
		return err // w nil: not a cairn project, stay out of the way
	}

	switch event {
	case claudecode.SessionStart:
		return m.hookSessionStart(ctx, w, in)
	case claudecode.UserPromptSubmit:
		// No inscription here: Stop inscribes each turn as it ends, and
		// the prompt waits for this hook. One additionalContext for every
		// note: the client reads one answer per hook.
		var notes []string
		note, err := m.hookPressure(ctx, w, in)
		if err != nil {
			return err
		}
		if note != "" {
			notes = append(notes, note)
		}
		line, err := m.hookSuggest(ctx, w, in.Prompt)
		if err != nil {
			return err
		}
		if line != "" {
			notes = append(notes, line)
		}
		if len(notes) == 0 {
			return nil
		}
		return claudecode.WriteAdditionalContext(m.Stdout, claudecode.UserPromptSubmit, strings.Join(notes, "\n"))
	case claudecode.Stop:
		if _, err := m.hookInscribe(ctx, w, in); err != nil {
			return err
		}
		return m.hookExhaustion(ctx, w, in)
	case claudecode.PostToolUse, claudecode.PostToolUseFailure:
		return m.hookExhaustion(ctx, w, in)
	case claudecode.PreCompact:
		return m.hookPreCompact(ctx, w, in)
	case claudecode.SessionEnd:
		return m.hookSessionEnd(ctx, w, in)
	case claudecode.PreToolUse:
		return m.hookPreToolUse(w, in)
	case claudecode.SubagentStart:
		return m.hookSubagentStart(w, in)
	case claudecode.SubagentStop:
		return m.hookSubagentStop(w, in)
	}
	return nil
}

// hookInput reads a hook's input and the workspace of its cwd; nil and no
// error outside a workspace.
func (m *Main) hookInput(event string) (*claudecode.HookInput, *workspace.Workspace, error) {
	in, err := claudecode.ReadHookInput(m.Stdin, event)
	if err != nil {
		return nil, nil, err
	}
	if in.Cwd != "" {
		cwd := in.Cwd
		m.Getwd = func() (string, error) { return cwd, nil }
	}
	wd, err := m.Getwd()
	if err != nil {
		return nil, nil, err
	}
	root, ok := workspace.Find(wd)
	if !ok {
		return in, nil, nil
	}
	w := workspace.New(root)
	w.Session = m.sessionID(in.SessionID)
	w.Now = m.now
	return in, w, nil
}

// hookContextChars is what the SessionStart context may take: Claude Code
// passes 10,000 characters on whole, and the note pointing to the full
// context needs a line.
const hookContextChars = claudecode.MaxAdditionalContext - 800

// hookSessionStart prints the assembled context. Tokens are not counted:
// Claude Code's limit is in characters, and loading the BPE ranks would
// cost more than the whole hook may take.
func (m *Main) hookSessionStart(ctx context.Context, w *workspace.Workspace, in *claudecode.HookInput) error {
	st, err := m.openStore("")
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := m.syncMission(ctx, st, true); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
		return err // mission.json edited by hand is read back first
	}
	prime, err := w.Prime(workspace.DefaultPrimeChars)
	if err != nil {
		return err
	}
	relay := []assemble.Document{{Name: "cairn prime", Text: prime}}
	board, err := m.currentBoard(w)
	if err != nil {
		return err
	}
	if board != nil {
		relay = append(relay, *board)
	}
	req := assemble.Request{
		Owner:  m.Getenv("CAIRN_AGENT"),
		Budget: cairn.DefaultBudget(),
		Format: assemble.XML,
		Relay:  relay,
		Files:  hookIndex(w.Root),
	}
	req.Budget.Tokens, req.Budget.Chars = 0, hookContextChars
	a := &assemble.Assembler{Frames: st.frames, Missions: st.missions, Rounds: st.rounds, Sessions: st.sessions}
	view, err := a.View(ctx, req)
	if err != nil {
		return err
	}
	out, err := assemble.Build(view, req.Budget, req.Format, assemble.Estimate)
	if err != nil {
		return err
	}
	text := out.Text
	if len(out.Cuts) > 0 {
		// The whole context is built from the same view: reading the
		// store once is most of what the hook costs.
		req.Budget.Chars = 0
		full, err := assemble.Build(view, req.Budget, req.Format, assemble.Estimate)
		if err != nil {
			return err
		}
		path, err := writeFullContext(w, in.SessionID, full.Text)
		if err != nil {
			return err
		}
		text = strings.TrimRight(text, "\n") + fmt.Sprintf("\n\nThis context was cut to fit; all of it (%d characters) is in %s: read it when you need what was cut.\n", len(full.Text), path)
	}
	if text, err = givenOnce(w, in.SessionID, in.Source, text); err != nil {
		return err
	}
	if err := w.StartSession(); err != nil && cairn.ErrorCode(err) != cairn.EINVALID {
		return err // EINVALID: no session id that names a file, nothing to compare at its end
	}
	if line := revivedLine(w, in); line != "" {
		text = strings.TrimRight(text, "\n") + "\n\n" + line + "\n"
	}
	return claudecode.WriteAdditionalContext(m.Stdout, claudecode.SessionStart, text)
}

// currentBoard returns the board of the situation the session is in, or
// nil if it has none.
func (m *Main) currentBoard(w *workspace.Workspace) (*assemble.Document, error) {
	wd, err := m.Getwd()
	if err != nil {
		return nil, err
	}
	here, err := w.Situation(wd)
	if err != nil {
		return nil, err
	}
	at, err := w.Current(here)
	if err != nil {
		return nil, err
	}
	name := boardPath(at)
	data, err := os.ReadFile(filepath.Join(w.Root, filepath.FromSlash(name)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return &assemble.Document{Name: name, Text: string(data)}, nil
}

// hookIndex lists the workspace's relay files that exist, for the
// context's index.
func hookIndex(root string) []assemble.File {
	var files []assemble.File
	for _, f := range []struct{ name, note string }{
		{cairn.ProjectFile, "identity and conventions"},
		{cairn.StateFile, "phase, task, progress (cairn state)"},
		{cairn.DecisionsFile, "decisions (cairn decide)"},
		{cairn.TodosFile, "todos (cairn todo list)"},
		{cairn.BoardFile, "checkpoints and messages (cairn checkpoint)"},
	} {
		if _, err := os.Stat(filepath.Join(root, f.name)); err == nil {
			files = append(files, assemble.File{Path: f.name, Note: f.note})
		}
	}
	return files
}

// writeFullContext writes the uncut context to .cairn/context/ and returns
// its path relative to the workspace.
func writeFullContext(w *workspace.Workspace, session, text string) (string, error) {
	name := "context.xml"
	if session != "" && !strings.ContainsAny(session, `/\.`) {
		name = session + ".xml"
	}
	rel := filepath.Join(workspace.Dir, "context", name)
	path := filepath.Join(w.Root, rel)
	// A temporary file of its own, not synced (the context is rebuilt at
	// every session start): two sessions resumed at once each write
	// theirs, and the last rename wins.
	if err := writeAtomic(path, [][]byte{[]byte(text)}, 0o644); err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// hookInscribe inscribes the session's transcript and its subagents'
// from where the last import stopped, and returns the session's last
// round.
func (m *Main) hookInscribe(ctx context.Context, w *workspace.Workspace, in *claudecode.HookInput) (*cairn.Round, error) {
	if in.TranscriptPath == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "The hook input has no transcript_path.")
	}
	paths := []string{in.TranscriptPath}
	subagents := filepath.Join(strings.TrimSuffix(in.TranscriptPath, ".jsonl"), "subagents")
	if info, err := os.Stat(subagents); err == nil && info.IsDir() {
		paths = append(paths, subagents)
	}
	f, err := m.openTranscript(in.TranscriptPath)
	if f == nil {
		return nil, err // refused, or nothing written yet
	}
	f.Close() // the import opens it again, under the same rule
	st, err := m.openStore("")
	if err != nil {
		return nil, err
	}
	defer st.Close()
	t, err := m.activeTagsSince(ctx, w, st)
	if err != nil {
		return nil, err
	}
	var format cairn.Transcript = claudecode.Format{}
	if gemini.IsSession(in.TranscriptPath, nil) {
		format = gemini.Format{}
	}
	im := &inscribe.Importer{Store: importStore{st.inscription, st.lines}, Format: format,
		Tag:             func(*cairn.Session) (string, string) { return t.EngagementID, t.FrameID },
		EngagementSince: t.EngagementSince, FrameSince: t.FrameSince, Folders: m.transcriptDirs()}
	// $CAIRN_REDACT: every hook stores lines with secrets replaced (a
	// shared store).
	if im.Redact, err = lineRedactor(m.Getenv("CAIRN_REDACT") != ""); err != nil {
		return nil, err
	}
	rep, err := im.Import(ctx, paths)
	if err != nil {
		return nil, err
	}
	for _, f := range rep.Files {
		switch f.Status {
		case inscribe.StatusFailed:
			return nil, fmt.Errorf("%s: %s", f.Path, f.Error)
		case inscribe.StatusSkipped:
			// A sub-agent's file that is a link out of the transcript
			// folders, a FIFO or a device: named, and the rest inscribed.
			fmt.Fprintf(m.Stderr, "cairn: %s: %s\n", f.Path, f.Error)
		}
	}
	if len(rep.Files) == 0 || rep.Files[0].SessionID == "" {
		return nil, nil
	}
	last, err := st.inscription.LastRound(ctx, rep.Files[0].SessionID)
	if cairn.ErrorCode(err) == cairn.ENOTFOUND {
		return nil, nil
	}
	return last, err
}

// openTranscript opens a hook's transcript_path under the rule every
// import applies ([inscribe.Open]): a regular file (a FIFO or a device is
// refused at once, never waited on) under the folders a client keeps
// transcripts in ([Main.transcriptDirs]), symlinks resolved first, so
// hook input naming /etc/passwd, or a link to it, stores and exports
// nothing. Returns nil and no error when the file does not exist yet.
func (m *Main) openTranscript(path string) (*os.File, error) {
	dirs := m.transcriptDirs()
	if len(dirs) == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "The hook's transcript_path %s is not read: no transcript folder is known ($HOME is not set). Set $CAIRN_TRANSCRIPT_DIRS to read it.", path)
	}
	f, err := inscribe.Open(path, dirs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil // nothing written yet
	case errors.Is(err, inscribe.ErrRefused):
		reason := strings.TrimPrefix(strings.TrimPrefix(err.Error(), inscribe.ErrRefused.Error()), ": ")
		if strings.Contains(reason, "not under a transcript folder") {
			reason += ". Add its folder to $CAIRN_TRANSCRIPT_DIRS to read it"
		}
		return nil, cairn.Errorf(cairn.EINVALID, "The hook's transcript_path %s is not read: %s.", path, reason)
	}
	return f, err
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

// activeTagsSince returns what new rounds are tagged with: the workspace's
// active engagement and the frame in progress now (each "" if none), with
// the times they began: rounds from before are not theirs.
func (m *Main) activeTagsSince(ctx context.Context, w *workspace.Workspace, st *store) (cairn.Inscription, error) {
	var t cairn.Inscription
	switch e, err := w.FindEngagement(); {
	case err != nil:
		return t, err
	case e != nil && e.Active:
		t.EngagementID, t.EngagementSince = e.ID, e.Started
	}
	switch f, err := cairn.ActiveFrame(ctx, st.frames, m.Getenv("CAIRN_AGENT"), m.now()); cairn.ErrorCode(err) {
	case "":
		t.FrameID, t.FrameSince = f.ID, f.StartedAt
	case cairn.ENOTFOUND:
	default:
		return t, err
	}
	return t, nil
}

// hookSessionEnd inscribes what is left, checkpoints on exit, then syncs:
// state.json names this session as the last one and the relay files'
// changes are recorded (idempotent; it never refuses as cairn sync does).
func (m *Main) hookSessionEnd(ctx context.Context, w *workspace.Workspace, in *claudecode.HookInput) error {
	last, err := m.hookInscribe(ctx, w, in)
	if err != nil {
		return err
	}
	reason := in.Reason
	if reason == "" {
		reason = "other"
	}
	done := fmt.Sprintf("Session %s ended (%s)", shortID(w.Session), reason)
	if last != nil {
		done += fmt.Sprintf(" after %d rounds; last: %q", last.Seq, clipLine(last.UserPreview, 100))
	}
	c, err := m.sessionChanged(ctx, w, in)
	if err != nil {
		return err
	}
	if s := c.String(); s != "" {
		done += "; changed: " + s
	}
	if err := m.checkpointExit(w, done, "session end ("+reason+")"); err != nil {
		return err
	}
	_, err = w.EndSession()
	return err
}

// checkpointExit writes a checkpoint on leaving the current situation, as
// the hooks do when a session ends or its context runs out: what was done,
// and as next step the task in progress or the first planned one.
func (m *Main) checkpointExit(w *workspace.Workspace, done, why string) error {
	state, err := w.ReadState()
	if err != nil {
		return err
	}
	next := state.Progress.InProgress
	if next == "" && len(state.Progress.NextSteps) > 0 {
		next = state.Progress.NextSteps[0]
	}
	wd, err := m.Getwd()
	if err != nil {
		return err
	}
	here, err := w.Situation(wd)
	if err != nil {
		return err
	}
	_, err = w.Exit(here, &cairn.Checkpoint{Done: done, Next: next, Time: w.Now().Truncate(time.Second)}, why)
	return err
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// clipLine returns s on one line, cut to n runes with an ellipsis.
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
