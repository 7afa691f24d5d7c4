package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/loop"
	"github.com/cairn-dev/cairn/workspace"
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
	if *agent == "pi" {
		return m.runPiHook(ctx, fs.Args())
	}
	if *agent == "opencode" {
		return m.runOpencodeHook(ctx, fs.Args())
	}
	if *agent != "claude" {
		return &hookError{fmt.Errorf("hook --agent must be claude or gemini, got %q", *agent)}
	}
	if fs.NArg() != 1 || !isHookEvent(fs.Arg(0)) {
		return &hookError{fmt.Errorf("hook takes one EVENT: %s", strings.Join(claudecode.HookEvents, ", "))}
	}
	event := fs.Arg(0)
	m.inHook = true
	defer m.endHookStore()
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
	l, err := m.liveLoop(w)
	if err != nil {
		return err
	}
	r, err := l.Handle(ctx, loop.FromClaude(in))
	if err != nil {
		return err
	}
	return writeClaudeReply(m.Stdout, event, r)
}

// writeClaudeReply encodes a reply as Claude Code reads it, in one
// object: the agent's text as additionalContext, where the event takes
// it, else (Stop) as the systemMessage the person sees; the person's as
// systemMessage.
func writeClaudeReply(out io.Writer, event string, r loop.Reply) error {
	if event == claudecode.Stop {
		return claudecode.WriteHookOutput(out, event, "", strings.TrimSpace(r.Agent+"\n"+r.Person))
	}
	return claudecode.WriteHookOutput(out, event, r.Agent, r.Person)
}

// hookInput reads a hook's input and the workspace of its cwd; nil and no
// error outside a workspace.
func (m *Main) hookInput(event string) (*claudecode.HookInput, *workspace.Workspace, error) {
	in, err := claudecode.ReadHookInput(m.Stdin, event)
	if err != nil {
		return nil, nil, err
	}
	w, _, err := m.hookWorkspace(in.Cwd)
	if err != nil || w == nil {
		return in, nil, err
	}
	w.Session = m.sessionID(in.SessionID)
	return in, w, nil
}

// hookWorkspace is the workspace of a hook's folder, cwd (the process's
// when the input names none, which later reads then take as theirs), and
// that folder; nil outside a workspace.
func (m *Main) hookWorkspace(cwd string) (*workspace.Workspace, string, error) {
	if cwd != "" {
		m.Getwd = func() (string, error) { return cwd, nil }
	}
	wd, err := m.Getwd()
	if err != nil {
		return nil, "", err
	}
	root, ok := workspace.Find(wd)
	if !ok {
		return nil, wd, nil
	}
	w := workspace.New(root)
	w.Now = m.now
	return w, wd, nil
}
