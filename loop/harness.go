package loop

import (
	"github.com/cairn-dev/cairn"
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

// Opencode is opencode, whose plugin stands for hooks.
const Opencode = cairn.AgentOpencode

// An OpencodeHook is what cairn's opencode plugin says of a moment of
// opencode's session (opencode/plugin.go): the event ("start" at the
// first request of a session the plugin sees, and after session.compacted;
// "prompt" at chat.message; "idle" at session.idle; "compact" at
// experimental.session.compacting; "end" when opencode exits), the
// session's id, the project folder, opencode's data folder, the prompt's
// words, whether the session was just compacted, and the context as
// opencode counts it: the last reply's tokens (input, output and cache,
// as its overflow check adds them) and the model's limits (context,
// input, output) with the compaction's reserve when configured.
type OpencodeHook struct {
	Event     string `json:"event"`
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Data      string `json:"data"`
	Prompt    string `json:"prompt"`
	Compacted bool   `json:"compacted"`
	Model     string `json:"model"`
	Tokens    int64  `json:"tokens"`
	Context   int64  `json:"context"`
	Input     int64  `json:"input"`
	Output    int64  `json:"output"`
	Reserved  *int64 `json:"reserved"`
}

// OpencodeOutputMax is opencode's cap on a reply's tokens
// (ProviderTransform.OUTPUT_TOKEN_MAX, 32,000 unless
// $OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX says otherwise).
const OpencodeOutputMax = 32000

// OpencodeCompactAt is where opencode compacts a session by itself, as
// its overflow check (SessionCompaction.isOverflow, the same from 1.1.65 to
// 1.18.33) has it: the model's input limit less the reserve (the config's
// compaction.reserved, else the lesser of 20,000 and the reply's cap) when
// the model has one, else its context less the reply's cap (its output
// limit within [OpencodeOutputMax]); 0 when the model gives no context
// size (opencode then never compacts by itself).
func OpencodeCompactAt(context, input, output int64, reserved *int64) int64 {
	if context <= 0 {
		return 0
	}
	maxOut := min(output, OpencodeOutputMax)
	if maxOut <= 0 {
		maxOut = OpencodeOutputMax
	}
	if input > 0 {
		r := min(20000, maxOut)
		if reserved != nil {
			r = *reserved
		}
		return max(0, input-r)
	}
	return max(0, context-maxOut)
}

// FromOpencode is the moment the opencode plugin's call stands for:
// "start" a session's start, from new whenever the plugin first sees the
// session (the context goes in each request's system prompt, which
// opencode does not keep: a resumed session holds no copy of it), after a
// compaction once opencode compacted; "prompt" a prompt, with the
// context's occupancy at opencode's own compaction point when the plugin
// knows the model's limits and the last reply's tokens; "idle" a turn's
// end; "compact" a compaction's eve (opencode compacts when the context
// overflows, or when the person asks); "end" the session's end. The
// transcript is opencode's data folder, which the session is mirrored
// from.
func FromOpencode(h OpencodeHook) Event {
	ev := Event{Harness: Opencode, Session: h.SessionID, Transcript: h.Data, Cwd: h.Cwd, Prompt: h.Prompt}
	switch h.Event {
	case "start":
		ev.Kind, ev.Source = Start, FromNew
		if h.Compacted {
			ev.Source = FromCompact
		}
	case "prompt":
		ev.Kind = Prompt
		if at := OpencodeCompactAt(h.Context, h.Input, h.Output, h.Reserved); at > 0 && h.Tokens > 0 {
			ev.Occupancy = &cairn.Occupancy{Tokens: h.Tokens, Model: h.Model,
				Window: cairn.Window{Size: h.Context, CompactAt: at, Source: "opencode"}}
		}
	case "idle":
		ev.Kind = TurnEnd
	case "compact":
		ev.Kind = PreCompact
	case "end":
		ev.Kind, ev.Reason = End, "exit"
	}
	return ev
}
