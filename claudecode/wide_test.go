package claudecode

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"

	"github.com/google/go-cmp/cmp"
)

// wideSession returns the lines of a session whose rounds hold lines of
// n content parts of every kind: tool calls answered in the same line, in
// an earlier one and in a later one, answers to unknown calls, parts of
// unknown types, user text that is a prompt and text that is not.
func wideSession(n int) [][]byte {
	line := func(typ, role string, uuid int, parts []string) []byte {
		return fmt.Appendf(nil, `{"type":%q,"uuid":"u%d","sessionId":"s","isSidechain":false,"timestamp":"2026-02-11T20:36:%02d.000Z","message":{"id":"m%d","role":%q,"model":"x","content":[%s],"usage":{"input_tokens":1,"output_tokens":2}}}`+"\n",
			typ, uuid, uuid%60, uuid, role, strings.Join(parts, ","))
	}
	var assistant, user []string
	for i := range n {
		switch i % 6 {
		case 0:
			assistant = append(assistant, fmt.Sprintf(`{"type":"text","text":"answer %d"}`, i))
		case 1:
			assistant = append(assistant, fmt.Sprintf(`{"type":"tool_use","id":"t%d","name":"Tool%d","input":{"n":%d}}`, i, i%7, i))
		case 2:
			assistant = append(assistant, fmt.Sprintf(`{"type":"tool_result","tool_use_id":"t%d","content":"same line"}`, i-1))
		case 3:
			assistant = append(assistant, fmt.Sprintf(`{"type":"thinking","thinking":"thought %d"}`, i))
		case 4:
			assistant = append(assistant, `{"type":"unknown-part","text":"skipped"}`)
		case 5:
			assistant = append(assistant, fmt.Sprintf(`{"type":"tool_result","tool_use_id":"later%d","content":[{"type":"text","text":"early"}],"is_error":true}`, i))
		}
		switch i % 4 {
		case 0:
			user = append(user, fmt.Sprintf(`{"type":"tool_result","tool_use_id":"t%d","content":"earlier line"}`, i+1))
		case 1:
			user = append(user, fmt.Sprintf(`{"type":"text","text":"prompt %d"}`, i))
		case 2:
			user = append(user, `{"type":"text","text":"<system-reminder>injected</system-reminder>"}`)
		case 3:
			user = append(user, `{"type":"image","source":{}}`)
		}
	}
	return [][]byte{
		line("user", "user", 1, []string{`{"type":"text","text":"start"}`}),
		line("assistant", "assistant", 2, assistant),
		line("user", "user", 3, user),
		line("assistant", "assistant", 4, []string{`{"type":"tool_use","id":"later5","name":"Late","input":{}}`, `{"type":"text","text":"after"}`}),
		line("user", "user", 5, user),
	}
}

// TestWideLine checks that a line of more blocks than a round holds gives
// the blocks, rounds and usage that holding every block gives, and that
// its blocks are not held.
func TestWideLine(t *testing.T) {
	const n = 10_000
	build := func(limit int, lines [][]byte) (held int, _ []*cairn.Round, _ []*cairn.Block, _ []*cairn.MessageUsage) {
		defer func(w int) { wideBlocks = w }(wideBlocks)
		wideBlocks = limit
		b := newBuilder(&cairn.Session{ID: "s", Agent: cairn.AgentClaudeCode}, 0)
		for i, raw := range lines {
			b.Add(&cairn.Line{SessionID: "s", No: i + 1, Raw: raw})
		}
		for _, rs := range append(b.completed, b.open) {
			held += len(rs.blocks)
		}
		rounds, seq, msgs := b.Finish()
		first := cairn.CollectBlocks(seq)
		if again := cairn.CollectBlocks(seq); !cmp.Equal(first, again) {
			t.Fatalf("a second read of the blocks differs: %s", cmp.Diff(first, again))
		}
		return held, rounds, first, msgs
	}
	lines := wideSession(n)
	_, wantRounds, wantBlocks, wantMsgs := build(1<<30, lines)
	held, rounds, blocks, msgs := build(1000, lines)
	if len(wantBlocks) < 2*n {
		t.Fatalf("%d blocks, want at least %d", len(wantBlocks), 2*n)
	}
	if diff := cmp.Diff(wantRounds, rounds); diff != "" {
		t.Errorf("rounds (-held +wide):\n%s", diff)
	}
	if diff := cmp.Diff(wantBlocks, blocks); diff != "" {
		t.Errorf("blocks (-held +wide):\n%s", diff)
	}
	if diff := cmp.Diff(wantMsgs, msgs); diff != "" {
		t.Errorf("messages (-held +wide):\n%s", diff)
	}
	if held > 10 {
		t.Errorf("the builder holds %d blocks, want the few of its narrow lines", held)
	}
}
