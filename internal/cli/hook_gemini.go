package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/loop"
)

// runGeminiHook runs "cairn hook --agent gemini EVENT": Gemini CLI's hook
// input is Claude Code's (session_id, transcript_path, cwd,
// hook_event_name), and at each event cairn does what it does at the Claude
// Code event it stands for (gemini.ClaudeEvent): SessionStart gives the
// assembled context, BeforeAgent the suggestion line with the prompt (the
// user's words alone, gemini.HookPrompt), AfterAgent and PreCompress
// inscribe the session, SessionEnd inscribes the rest and checkpoints. The pressure note and the exhaustion check read
// Claude Code's transcripts and window, and are not run.
func (m *Main) runGeminiHook(ctx context.Context, args []string) error {
	if len(args) != 1 || gemini.ClaudeEvent(args[0]) == "" {
		return &hookError{fmt.Errorf("hook --agent gemini takes one EVENT: %s", strings.Join(gemini.HookEvents, ", "))}
	}
	event := args[0]
	m.inHook = true
	defer m.endHookStore()
	if err := m.geminiHook(ctx, event); err != nil {
		return &hookError{fmt.Errorf("hook %s: %s", event, strings.Join(strings.Fields(errorText(err)), " "))}
	}
	return nil
}

func (m *Main) geminiHook(ctx context.Context, event string) error {
	in, w, err := m.hookInput(event)
	if err != nil || w == nil {
		return err
	}
	l, err := m.liveLoop(w)
	if err != nil {
		return err
	}
	r, err := l.Handle(ctx, loop.FromGemini(in))
	if err != nil {
		return err
	}
	return claudecode.WriteHookOutput(m.Stdout, event, r.Agent, r.Person)
}
