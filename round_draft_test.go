package cairn_test

import (
	"testing"

	"cairn"
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
