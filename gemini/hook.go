package gemini

import "path/filepath"

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
