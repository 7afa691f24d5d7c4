package claudecode

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn/internal/uuid"
)

// CheckResumable returns an error naming the first line that breaks what
// `claude --resume` needs of a session file: every line one JSON object of
// the session; one root (parentUuid null), first; every other parentUuid an
// earlier line's uuid; uuids real and unique; timestamps rising along the
// chain (not rising: the client orders by parentUuid, and its own files
// and merges of overlapping sessions do not rise); every tool_use answered
// by a later tool_result and every result answering an earlier call; no
// two assistant messages in a row (assistant lines with no user line
// between share one message id, which the client sends as one message);
// the last line a completed assistant text turn or a user line of tool
// results.
func CheckResumable(sessionID string, lines [][]byte) error {
	seen := map[string]bool{}
	calls, answered := map[string]int{}, map[string]bool{}
	prevAssistant := "" // the message id of the assistant line since the last user line
	type line struct {
		Type        string          `json:"type"`
		UUID        string          `json:"uuid"`
		ParentUUID  *string         `json:"parentUuid"`
		SessionID   string          `json:"sessionId"`
		Timestamp   string          `json:"timestamp"`
		IsSidechain bool            `json:"isSidechain"`
		Message     *message        `json:"message"`
		Extra       json.RawMessage `json:"-"`
	}
	var end *line
	for i, raw := range lines {
		n := i + 1
		var l line
		if err := json.Unmarshal(raw, &l); err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		if l.SessionID != sessionID {
			return fmt.Errorf("line %d: sessionId %q, want %q", n, l.SessionID, sessionID)
		}
		if !uuid.Valid(l.UUID) || seen[l.UUID] {
			return fmt.Errorf("line %d: uuid %q is not a fresh uuid", n, l.UUID)
		}
		if l.IsSidechain {
			return fmt.Errorf("line %d: a sidechain line", n)
		}
		switch {
		case i == 0 && l.ParentUUID != nil:
			return fmt.Errorf("line 1: the root has parentUuid %q", *l.ParentUUID)
		case i > 0 && l.ParentUUID == nil:
			return fmt.Errorf("line %d: a second root", n)
		case i > 0 && !seen[*l.ParentUUID]:
			return fmt.Errorf("line %d: parentUuid %q is no earlier line", n, *l.ParentUUID)
		}
		seen[l.UUID] = true
		if _, err := time.Parse(time.RFC3339Nano, l.Timestamp); err != nil {
			return fmt.Errorf("line %d: timestamp %q: %v", n, l.Timestamp, err)
		}
		switch {
		case l.Type == "user":
			prevAssistant = ""
		case l.Type == "assistant" && l.Message != nil:
			if prevAssistant != "" && l.Message.ID != prevAssistant {
				return fmt.Errorf("line %d: assistant message %s follows assistant message %s with no user line between: two assistant messages in a row", n, l.Message.ID, prevAssistant)
			}
			prevAssistant = l.Message.ID
		}
		if l.Message != nil {
			for _, b := range l.Message.blocks() {
				switch b.Type {
				case "tool_use":
					calls[b.ID] = n
				case "tool_result":
					if _, ok := calls[b.ToolUseID]; !ok {
						return fmt.Errorf("line %d: tool_result for %s with no earlier tool_use", n, b.ToolUseID)
					}
					answered[b.ToolUseID] = true
				}
			}
		}
		end = &l
	}
	for id, n := range calls {
		if !answered[id] {
			return fmt.Errorf("line %d: tool_use %s has no tool_result", n, id)
		}
	}
	if end != nil && end.Type == "user" && end.Message != nil {
		for _, b := range end.Message.blocks() {
			if b.Type == "tool_result" {
				return nil
			}
		}
	}
	if end == nil || end.Type != "assistant" || end.Message == nil {
		return fmt.Errorf("the session ends neither on an assistant line nor on tool results")
	}
	if s, ok := end.Message.text(); ok && s != "" {
		return nil
	}
	for _, b := range end.Message.blocks() {
		if b.Type == "text" {
			return nil
		}
	}
	return fmt.Errorf("line %d: the last assistant line holds no text", len(lines))
}
