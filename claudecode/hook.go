package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/cairn-dev/cairn"
)

// Hook events cairn handles. Claude Code names the event in the input's
// hook_event_name; cairn's hook command takes it as an argument too, so the
// settings entry says what it runs for.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	Stop             = "Stop"
	PreCompact       = "PreCompact"
	SessionEnd       = "SessionEnd"

	// PostToolUse and PostToolUseFailure run after each tool call; cairn
	// watches them for context exhaustion (seed 004).
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	PreToolUse         = "PreToolUse"    // only for the sub-agent tool: see [HookMatcher]
	SubagentStart      = "SubagentStart" // may add context to the sub-agent's first request
	SubagentStop       = "SubagentStop"
)

// HookEvents are the events [Install] registers, in the order Claude Code
// fires them.
var HookEvents = []string{SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure, Stop, PreCompact, SessionEnd, PreToolUse, SubagentStart, SubagentStop}

// HookMatcher returns the matcher of an event that must not run for every
// tool, "" for the others: PreToolUse runs only for the tool that starts a
// sub-agent (Agent in 2.1.x, Task before).
func HookMatcher(event string) string {
	if event == PreToolUse {
		return "Task|Agent"
	}
	return ""
}

// SubagentTools are the names of the tool that starts a sub-agent.
var SubagentTools = []string{"Agent", "Task"}

// MaxAdditionalContext is the most characters of additionalContext Claude
// Code passes on whole. Seen with claude 2.1.330: 9,950 arrive as they are;
// 10,050 are replaced by a 2 KB preview and a pointer to a file.
const MaxAdditionalContext = 10_000

// A HookInput is the JSON Claude Code writes on a command hook's stdin.
// Fields an event does not carry are empty.
type HookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	Source         string `json:"source,omitempty"`  // SessionStart: startup, resume, clear, compact
	Trigger        string `json:"trigger,omitempty"` // PreCompact: manual, auto
	Reason         string `json:"reason,omitempty"`  // SessionEnd: clear, logout, prompt_input_exit, other
	Prompt         string `json:"prompt,omitempty"`  // UserPromptSubmit

	// PreToolUse: the tool and its input.
	ToolName  string          `json:"tool_name,omitempty"`
	ToolInput json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`

	// SubagentStart and SubagentStop: the sub-agent; SubagentStop adds its
	// transcript and last answer.
	AgentID              string `json:"agent_id,omitempty"`
	AgentType            string `json:"agent_type,omitempty"`
	AgentTranscriptPath  string `json:"agent_transcript_path,omitempty"`
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
}

// maxHookInput bounds what is read from stdin: hook inputs are small, and
// a runaway writer must not hold the agent up.
const maxHookInput = 1 << 20

// ReadHookInput parses a hook's stdin. Returns EINVALID if it is not one
// JSON object, or names another event than event (when event is not
// empty).
func ReadHookInput(r io.Reader, event string) (*HookInput, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxHookInput+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxHookInput {
		return nil, cairn.Errorf(cairn.EINVALID, "Hook input is over %d MiB, more than cairn reads: a hook's input is one small JSON object; nothing was read.", maxHookInput>>20)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "No hook input on stdin: Claude Code writes one JSON object.")
	}
	var in HookInput
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, cairn.Errorf(cairn.EINVALID, "Hook input is not one JSON object: %s.", jsonProblem(err, len(data)))
	}
	if in.Event == "" {
		in.Event = event
	}
	if event != "" && in.Event != event {
		return nil, cairn.Errorf(cairn.EINVALID, "Hook input is for %s, not %s.", in.Event, event)
	}
	return &in, nil
}

// jsonProblem says where a document of n bytes that json.Unmarshal
// refused goes wrong, in words of its own, not the decoder's.
func jsonProblem(err error, n int) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && se.Offset >= int64(n):
		return fmt.Sprintf("it ends, after %d bytes, before the object does (cut short?)", n)
	case errors.As(err, &se):
		return fmt.Sprintf("it is not valid JSON at byte %d of %d", se.Offset, n)
	case errors.As(err, &te) && te.Field != "":
		return fmt.Sprintf("its field %q holds a JSON %s, which it may not", te.Field, te.Value)
	case errors.As(err, &te):
		return fmt.Sprintf("it is a JSON %s", te.Value)
	}
	return "it does not decode"
}

// A HookOutput is what a hook prints on stdout for Claude Code (and
// Gemini CLI, which reads the same fields) to act on.
type HookOutput struct {
	HookSpecificOutput *HookSpecificOutput `json:"hookSpecificOutput,omitempty"`
	// SystemMessage is shown to the person, never sent to the model.
	SystemMessage string `json:"systemMessage,omitempty"`
}

// HookSpecificOutput carries text to add to the agent's context.
type HookSpecificOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// WriteHookOutput writes, as one JSON line, agent as the text added to the
// context at event (SessionStart or UserPromptSubmit) and person as the
// systemMessage the client shows the person; nothing when both are empty.
// One object carries both: the client reads one answer per hook.
func WriteHookOutput(w io.Writer, event, agent, person string) error {
	if agent == "" && person == "" {
		return nil
	}
	out := HookOutput{SystemMessage: person}
	if agent != "" {
		out.HookSpecificOutput = &HookSpecificOutput{HookEventName: event, AdditionalContext: agent}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
