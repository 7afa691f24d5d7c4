package loop

import (
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/gemini"
)

// FromClaude is the moment a Claude Code hook's input stands for.
func FromClaude(in *claudecode.HookInput) Event {
	ev := hookEvent(in)
	ev.Harness = ClaudeCode
	switch in.Event {
	case claudecode.SessionStart:
		ev.Kind = Start
	case claudecode.UserPromptSubmit:
		ev.Kind = Prompt
	case claudecode.PreToolUse:
		ev.Kind = ToolCall
	case claudecode.PostToolUse, claudecode.PostToolUseFailure:
		ev.Kind = ToolResult
	case claudecode.Stop:
		ev.Kind = TurnEnd
	case claudecode.PreCompact:
		ev.Kind = PreCompact
	case claudecode.SubagentStart:
		ev.Kind = SubagentStart
	case claudecode.SubagentStop:
		ev.Kind = SubagentStop
	case claudecode.SessionEnd:
		ev.Kind = End
	}
	return ev
}

// FromGemini is the moment a Gemini CLI hook's input (Claude Code's
// fields) stands for: BeforeAgent a prompt (the user's words alone,
// [gemini.HookPrompt]), AfterAgent a turn's end, PreCompress a
// compaction's eve.
func FromGemini(in *claudecode.HookInput) Event {
	ev := hookEvent(in)
	ev.Harness = Gemini
	switch in.Event {
	case gemini.SessionStart:
		ev.Kind = Start
	case gemini.BeforeAgent:
		ev.Kind, ev.Prompt = Prompt, gemini.HookPrompt(in.Prompt)
	case gemini.AfterAgent:
		ev.Kind = TurnEnd
	case gemini.PreCompress:
		ev.Kind = PreCompact
	case gemini.SessionEnd:
		ev.Kind = End
	}
	return ev
}

func hookEvent(in *claudecode.HookInput) Event {
	return Event{Session: in.SessionID, Transcript: in.TranscriptPath, Cwd: in.Cwd, Source: in.Source,
		Trigger: in.Trigger, Reason: in.Reason, Prompt: in.Prompt, Tool: in.ToolName, ToolInput: in.ToolInput,
		Agent: in.AgentID, LastAnswer: in.LastAssistantMessage}
}
