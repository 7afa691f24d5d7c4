package cairn_test

import (
	"testing"

	"github.com/cairn-dev/cairn"
)

func TestFinishRounds(t *testing.T) {
	d := &cairn.RoundDraft{Round: &cairn.Round{SessionID: "s", Seq: 2}}
	d.Round.AddTool("Bash")
	d.Round.AddTool("Read")
	d.Round.AddTool("Bash")
	d.Usage.Set(2, "m1", "opus", cairn.Usage{Input: 1, Output: 1})
	d.Usage.Set(2, "m2", "opus", cairn.Usage{Input: 5})
	d.Usage.Set(2, "m1", "", cairn.Usage{Input: 3, Output: 7}) // a later line of m1, more complete
	d.Blocks = []*cairn.Block{{Index: 0}, {Index: 1}}
	rounds, blocks, msgs := cairn.FinishRounds([]*cairn.RoundDraft{d})
	if len(rounds) != 1 || rounds[0] == d.Round {
		t.Fatalf("rounds = %v: want one copy of the draft's round", rounds)
	}
	if got := rounds[0].Usage; got != (cairn.Usage{Input: 8, Output: 7}) {
		t.Errorf("round usage = %+v, want m1's last figures plus m2's", got)
	}
	if len(rounds[0].Tools) != 2 {
		t.Errorf("tools = %v, want Bash and Read once each", rounds[0].Tools)
	}
	if len(msgs) != 2 || msgs[0].MessageID != "m1" || msgs[0].Model != "opus" || msgs[0].Usage.Output != 7 || msgs[1].MessageID != "m2" {
		t.Errorf("messages = %+v, want m1 (opus, its last usage) then m2", msgs)
	}
	if n := len(cairn.CollectBlocks(blocks)); n != 2 {
		t.Errorf("%d blocks, want 2", n)
	}
	if d.Round.Usage != (cairn.Usage{}) {
		t.Errorf("the draft's round was changed: %+v", d.Round.Usage)
	}
}

func TestRoundDraftAdd(t *testing.T) {
	d := &cairn.RoundDraft{Round: &cairn.Round{SessionID: "s", Seq: 3}}
	l := &cairn.Line{No: 7}
	d.Add(l, "user", cairn.UserText, "first   prompt", "", nil)
	d.Add(l, "user", cairn.UserText, "second prompt", "", nil)
	d.Add(l, "assistant", cairn.AssistantText, "an answer", "m1", nil)
	d.Add(l, "assistant", cairn.ToolUse, "{}", "m1", func(b *cairn.Block) { b.ToolName, b.ToolID = "Bash", "t1" })
	d.Add(l, "assistant", cairn.AssistantText, "  ", "m2", nil)
	if d.Round.UserPreview != "first prompt" || d.Round.AgentPreview != "an answer" {
		t.Errorf("previews = %q, %q: want the first prompt's and the last answer's not blank", d.Round.UserPreview, d.Round.AgentPreview)
	}
	if len(d.Blocks) != 5 {
		t.Fatalf("blocks = %d, want 5", len(d.Blocks))
	}
	call := d.Blocks[3]
	if call.Index != 3 || call.LineNo != 7 || call.RoundSeq != 3 || call.SessionID != "s" || call.MessageID != "m1" || call.ToolName != "Bash" || call.ToolID != "t1" {
		t.Errorf("call block = %+v", call)
	}
}
