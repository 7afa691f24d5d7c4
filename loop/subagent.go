package loop

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/claudecode"
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

// toolCall records a hand-off for a sub-agent the agent is starting.
func (l *Loop) toolCall(in Event) error {
	if !slices.Contains(claudecode.SubagentTools, in.Tool) {
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
	_, err := l.Workspace.Handoff(task, "")
	return err
}

// subagentStart names the sub-agent on its hand-off and returns the
// relay context it is given: what any new session reads first, and its
// task.
func (l *Loop) subagentStart(in Event) (string, error) {
	w := l.Workspace
	if in.Agent == "" {
		return "", nil
	}
	h, err := w.StartChild(w.Session, subagentSession(w.Session, in.Agent))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if h != nil {
		fmt.Fprintf(&b, "You are a sub-agent working on hand-off %s for session %s; cairn records your final answer as its result in state.json.\n", h.ID, ShortID(h.Parent))
	}
	fmt.Fprintf(&b, "%s\n\n", subagentSessionNote(subagentSession(w.Session, in.Agent)))
	prime, err := w.Prime(ContextChars - b.Len())
	if err != nil {
		return "", err
	}
	b.WriteString(prime)
	return b.String(), nil
}

// subagentStop records the sub-agent's last answer on its hand-off.
func (l *Loop) subagentStop(in Event) error {
	if in.Agent == "" {
		return nil
	}
	_, err := l.Workspace.FinishChild(subagentSession(l.Workspace.Session, in.Agent), in.LastAnswer)
	return err
}

// subagentSessionNote tells a sub-agent the session its own cairn
// commands are to be filed under.
func subagentSessionNote(child string) string {
	return "Your cairn session is " + child + ": your shell's $CLAUDE_CODE_SESSION_ID is the parent's, so give your cairn commands `--session " + child + "` (`cairn push TITLE --session " + child + "`) or run them as `CAIRN_SESSION=" + child + " cairn …`, for what you push, plan, engage or checkpoint to be filed under you."
}

// subagentSession is the stored id of a 2.1.x sub-agent's session.
func subagentSession(parent, agent string) string { return parent + "-agent-" + agent }
