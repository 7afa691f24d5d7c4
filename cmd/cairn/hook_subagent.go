package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"cairn/claudecode"
	"cairn/workspace"
)

// Sub-agents, seen with claude 2.1.197 and 2.1.330: PreToolUse (matcher
// Task|Agent) carries the prompt and the tool_use_id but not the agent's
// id; SubagentStart carries agent_id and agent_type, not the prompt, and
// its additionalContext reaches the sub-agent's first request (so does a
// PreToolUse updatedInput, which needs a permission decision: cairn does
// not use it); SubagentStop carries agent_id, agent_transcript_path and
// last_assistant_message. The hooks chain them through state.json.
//
// A sub-agent's shell carries nothing of its own: its Bash environment is
// the parent's, $CLAUDE_CODE_SESSION_ID included (both releases; the hook
// payloads of its tool calls carry agent_id, which a command it runs never
// sees). So SubagentStart tells the sub-agent its own cairn session, to
// pass as --session: the one way its own cairn commands are filed under it.

// hookPreToolUse records a hand-off for a sub-agent the agent is starting.
func (m *Main) hookPreToolUse(w *workspace.Workspace, in *claudecode.HookInput) error {
	if !slices.Contains(claudecode.SubagentTools, in.ToolName) {
		return nil
	}
	var input struct {
		Description string `json:"description"`
		Prompt      string `json:"prompt"`
	}
	if err := json.Unmarshal(in.ToolInput, &input); err != nil || strings.TrimSpace(input.Prompt) == "" {
		return nil // not a call cairn understands: leave it alone
	}
	task := input.Prompt
	if d := strings.TrimSpace(input.Description); d != "" {
		task = d + ": " + task
	}
	_, err := w.Handoff(task, "")
	return err
}

// hookSubagentStart names the sub-agent on its hand-off and gives it the
// relay context: what any new session reads first, and its task.
func (m *Main) hookSubagentStart(w *workspace.Workspace, in *claudecode.HookInput) error {
	if in.AgentID == "" {
		return nil
	}
	h, err := w.StartChild(w.Session, subagentSession(w.Session, in.AgentID))
	if err != nil {
		return err
	}
	var b strings.Builder
	if h != nil {
		fmt.Fprintf(&b, "You are a sub-agent working on hand-off %s for session %s; cairn records your final answer as its result in state.json.\n", h.ID, shortID(h.Parent))
	}
	fmt.Fprintf(&b, "%s\n\n", subagentSessionNote(subagentSession(w.Session, in.AgentID)))
	prime, err := w.Prime(hookContextChars - b.Len())
	if err != nil {
		return err
	}
	b.WriteString(prime)
	return claudecode.WriteAdditionalContext(m.Stdout, claudecode.SubagentStart, b.String())
}

// hookSubagentStop records the sub-agent's last answer on its hand-off.
func (m *Main) hookSubagentStop(w *workspace.Workspace, in *claudecode.HookInput) error {
	if in.AgentID == "" {
		return nil
	}
	_, err := w.FinishChild(subagentSession(w.Session, in.AgentID), in.LastAssistantMessage)
	return err
}

// subagentSessionNote tells a sub-agent the session its own cairn
// commands are to be filed under.
func subagentSessionNote(child string) string {
	return "Your cairn session is " + child + ": your shell's $CLAUDE_CODE_SESSION_ID is the parent's, so give your cairn commands `--session " + child + "` (`cairn push TITLE --session " + child + "`) or run them as `CAIRN_SESSION=" + child + " cairn …`, for what you push, plan, engage or checkpoint to be filed under you."
}

// subagentSession is the stored id of a 2.1.x sub-agent's session.
func subagentSession(parent, agent string) string { return parent + "-agent-" + agent }
