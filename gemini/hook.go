package gemini

import (
	"path/filepath"
	"strings"
)

// Hook events cairn handles in Gemini CLI, which names them in its
// settings.json ("hooks": {"EVENT": [{"hooks": [{"type": "command",
// "command": …}]}]}, Claude Code's shape) and in the input's
// hook_event_name. The input carries session_id, transcript_path (the
// session file) and cwd as Claude Code's does, and the client reads
// hookSpecificOutput.additionalContext from a hook's stdout.
const (
	SessionStart = "SessionStart" // startup, resume, clear: the context to start from
	BeforeAgent  = "BeforeAgent"  // a prompt is sent: its additionalContext joins the prompt
	AfterAgent   = "AfterAgent"   // the agent answered: the turn is in the file
	PreCompress  = "PreCompress"  // the client is about to compress the history
	SessionEnd   = "SessionEnd"
)

// HookEvents are the events cairn registers, in the order the client fires
// them.
var HookEvents = []string{SessionStart, BeforeAgent, AfterAgent, PreCompress, SessionEnd}

// ClaudeEvent names the Claude Code event whose work cairn does at a Gemini
// CLI event: BeforeAgent is UserPromptSubmit, AfterAgent Stop, PreCompress
// PreCompact; SessionStart and SessionEnd are themselves. "" for an event
// cairn does not handle.
func ClaudeEvent(event string) string {
	switch event {
	case SessionStart, SessionEnd:
		return event
	case BeforeAgent:
		return "UserPromptSubmit"
	case AfterAgent:
		return "Stop"
	case PreCompress:
		return "PreCompact"
	}
	return ""
}

// SettingsPath returns the settings.json cairn's hooks go to: the
// project's .gemini/settings.json, or the user's under the Gemini home.
func SettingsPath(geminiHome, project string, user bool) string {
	if user {
		return filepath.Join(geminiHome, "settings.json")
	}
	return filepath.Join(project, ".gemini", "settings.json")
}

// contextTags are the wrappers of what the client puts in a prompt's text
// that the user did not type: hooks' additionalContext and its own
// session context.
var contextTags = [][2]string{{"<hook_context>", "</hook_context>"}, {"<session_context>", "</session_context>"}}

// HookPrompt returns the user's words of a BeforeAgent input's prompt. The
// client hands the hook the prompt as it will send it, and 0.61 puts
// SessionStart's additionalContext before the user's words as
// <hook_context>…</hook_context>: cairn's own context, whose lists are no
// tasks the user gave. Every such span is left out; an unclosed one runs
// to the end.
func HookPrompt(prompt string) string {
	var b strings.Builder
	rest := prompt
	for {
		at, tag := -1, [2]string{}
		for _, t := range contextTags {
			if i := strings.Index(rest, t[0]); i >= 0 && (at < 0 || i < at) {
				at, tag = i, t
			}
		}
		if at < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:at])
		end := strings.Index(rest[at:], tag[1])
		if end < 0 {
			break
		}
		rest = rest[at+end+len(tag[1]):]
	}
	return strings.TrimSpace(b.String())
}
