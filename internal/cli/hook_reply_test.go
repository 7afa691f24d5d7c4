package cli

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/loop"
)

// TestWriteClaudeReply: a reply with words for the agent and for the
// person is one object carrying both (the client reads one answer per
// hook); at Stop, which takes no additionalContext, both go to the
// person.
func TestWriteClaudeReply(t *testing.T) {
	r := loop.Reply{Agent: "for the agent", Person: "for the person"}
	for _, c := range []struct {
		event, context, message string
	}{
		{claudecode.UserPromptSubmit, "for the agent", "for the person"},
		{claudecode.SessionStart, "for the agent", "for the person"},
		{claudecode.Stop, "", "for the agent\nfor the person"},
	} {
		var out bytes.Buffer
		if err := writeClaudeReply(&out, c.event, r); err != nil {
			t.Fatal(err)
		}
		var got claudecode.HookOutput
		if err := json.Unmarshal(out.Bytes(), &got); err != nil || bytes.Count(out.Bytes(), []byte("\n")) != 1 {
			t.Fatalf("%s: %q is not one JSON object: %v", c.event, out.Bytes(), err)
		}
		context := ""
		if got.HookSpecificOutput != nil {
			context = got.HookSpecificOutput.AdditionalContext
		}
		if context != c.context || got.SystemMessage != c.message {
			t.Errorf("%s: additionalContext %q, systemMessage %q; want %q, %q", c.event, context, got.SystemMessage, c.context, c.message)
		}
	}
	var out bytes.Buffer
	if err := writeClaudeReply(&out, claudecode.Stop, loop.Reply{}); err != nil || out.Len() != 0 {
		t.Errorf("an empty reply wrote %q, %v", out.Bytes(), err)
	}
}
