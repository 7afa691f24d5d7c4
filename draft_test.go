package cairn

import (
	"context"
	"strings"
	"testing"
	"time"
)

// rounds is a RoundStore over a slice, for the filters DraftFrameResults
// uses: session, frame, Since, Until and Last.
type rounds []*Round

func (rs rounds) FindRound(_ context.Context, session string, seq int) (*Round, error) {
	for _, r := range rs {
		if r.SessionID == session && r.Seq == seq {
			return r, nil
		}
	}
	return nil, Errorf(ENOTFOUND, "no round")
}

func (rs rounds) FindRounds(_ context.Context, f RoundFilter) ([]*Round, error) {
	var out []*Round
	for _, r := range rs {
		if f.SessionID != "" && r.SessionID != f.SessionID || f.FrameID != "" && r.FrameID != f.FrameID ||
			!f.Since.IsZero() && r.StartedAt.Before(f.Since) || !f.Until.IsZero() && !r.StartedAt.Before(f.Until) {
			continue
		}
		out = append(out, r)
	}
	if f.Last > 0 && len(out) > f.Last {
		out = out[len(out)-f.Last:]
	}
	return out, nil
}

func (rs rounds) CountRounds(ctx context.Context, f RoundFilter) (int, error) {
	out, err := rs.FindRounds(ctx, f)
	return len(out), err
}

func (rs rounds) FindRoundPage(context.Context, string, int, BlockPage) (*Round, int, error) {
	return nil, 0, Errorf(EINVALID, "not served")
}

// TestDraftFrameResults_Steps: a frame pushed and popped inside round 2
// is drafted from the steps between its push and its pop (the step that
// pushed it, the write, the one that popped it), not the step before
// the push nor the answer after the pop. A frame pushed in round 2 and
// popped after round 4 takes round 3 (tagged with it) whole and round 2's
// steps from its push on, and leaves round 4, begun after its push and
// tagged with another frame (one pushed under it), to that frame.
func TestDraftFrameResults_Steps(t *testing.T) {
	const session = "s1"
	t0 := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	line := 0
	block := func(seq int, sec int, kind BlockKind, msg, text, tool, id string) *Block {
		line++
		return &Block{SessionID: session, RoundSeq: seq, LineNo: line, Kind: kind, Role: "assistant", Timestamp: at(sec),
			MessageID: msg, Content: text, ToolName: tool, ToolID: id}
	}
	round := func(seq int, frame string, blocks ...*Block) *Round {
		return &Round{SessionID: session, Seq: seq, FrameID: frame, StartedAt: blocks[0].Timestamp, EndedAt: blocks[len(blocks)-1].Timestamp,
			FirstLine: blocks[0].LineNo, LastLine: blocks[len(blocks)-1].LineNo, Blocks: blocks}
	}
	rs := rounds{
		round(1, "", block(1, 0, UserText, "", "start", "", ""), block(1, 1, AssistantText, "m0", "BEFORE-PUSH: reading.", "", "")),
		round(2, "",
			block(2, 10, UserText, "", "add the parser", "", ""),
			block(2, 11, AssistantText, "m1", "BEFORE-PUSH-2: looking.", "", ""),
			block(2, 12, ToolUse, "m2", `{"command":"cairn push Parser"}`, "Bash", "t2"),
			block(2, 13, ToolResult, "", "pushed parser", "", "t2"),
			block(2, 14, ToolUse, "m3", `{"file_path":"parser.go","content":"package parser"}`, "Write", "t3"),
			block(2, 15, ToolResult, "", "File created", "", "t3"),
			block(2, 16, AssistantText, "m4", "PARSER-DONE: the parser is in.", "", ""),
			block(2, 17, ToolUse, "m4", `{"command":"cairn pop"}`, "Bash", "t4"),
			block(2, 18, ToolResult, "", "popped parser", "", "t4"),
			block(2, 19, AssistantText, "m5", "AFTER-POP: done.", "", "")),
		round(3, "outer", block(3, 30, UserText, "", "go on", "", ""), block(3, 31, AssistantText, "m6", "OUTER-ROUND: more.", "", "")),
		round(4, "child", block(4, 40, UserText, "", "the child", "", ""), block(4, 41, AssistantText, "m7", "CHILD-ROUND: its own.", "", "")),
	}
	parser := &Frame{ID: "parser", SessionID: session, StartedAt: at(12).Add(500 * time.Millisecond), EndedAt: at(17).Add(500 * time.Millisecond)}
	d, n, err := DraftFrameResults(context.Background(), rs, parser, ResultsOptions{})
	if err != nil || n != 1 {
		t.Fatalf("draft of parser: %d rounds, %v", n, err)
	}
	if !strings.Contains(d.Results, "PARSER-DONE") || strings.Join(d.Artifacts, ",") != "parser.go" {
		t.Errorf("parser's draft lacks its steps: %+v", d)
	}
	for _, gone := range []string{"BEFORE-PUSH", "AFTER-POP"} {
		if strings.Contains(d.Results, gone) {
			t.Errorf("parser's draft holds %s:\n%s", gone, d.Results)
		}
	}

	// Not popped yet: every step after its push.
	open := &Frame{ID: "parser", SessionID: session, StartedAt: parser.StartedAt}
	if d, _, err := DraftFrameResults(context.Background(), rs[:2], open, ResultsOptions{}); err != nil || !strings.Contains(d.Results, "AFTER-POP") {
		t.Errorf("draft of a frame not popped yet: %+v, %v", d, err)
	}

	outer := &Frame{ID: "outer", SessionID: session, StartedAt: at(18).Add(500 * time.Millisecond), EndedAt: at(50)}
	d, n, err = DraftFrameResults(context.Background(), rs, outer, ResultsOptions{})
	if err != nil || n != 2 || !strings.Contains(d.Results, "OUTER-ROUND") || strings.Contains(d.Results, "CHILD-ROUND") {
		t.Errorf("outer's draft (%d rounds, %v):\n%s", n, err, d.Results)
	}
}
