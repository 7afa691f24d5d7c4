package opencode_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/surgery"
)

// shape is the session's messages in order, each its role and its parts'
// first lines (a tool part as tool:NAME=OUTPUT).
func shape(s *opencode.Session) string {
	var out []string
	for _, msg := range s.Messages {
		line := msg.Data["role"].(string)
		for _, p := range msg.Parts {
			switch p.Data["type"] {
			case "text":
				line += " text:" + strings.SplitN(p.Data["text"].(string), "\n", 2)[0]
			case "tool":
				st := p.Data["state"].(map[string]any)
				out, _ := st["output"].(string)
				line += " tool:" + p.Data["tool"].(string) + "=" + strings.SplitN(out, "\n", 2)[0]
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// TestExport_EachPromptItsOwnMessage crosses two rounds of another
// harness: the second round's prompt is a user message of its own after
// the first round's answer, not a part piled into the first prompt.
func TestExport_EachPromptItsOwnMessage(t *testing.T) {
	round := func(seq int, prompt, answer string) *cairn.Piece {
		first := seq * 10
		r := &cairn.Round{SessionID: "claude-1", Seq: seq, FirstLine: first, LastLine: first + 4, Blocks: []*cairn.Block{
			{LineNo: first, Kind: cairn.UserText, Content: prompt},
			{LineNo: first + 1, Kind: cairn.ToolUse, ToolName: "Bash", ToolID: prompt, Content: `{"command":"ls"}`, MessageID: prompt + "m1"},
			{LineNo: first + 2, Kind: cairn.ToolResult, ToolName: "Bash", ToolID: prompt, Content: "a.txt"},
			{LineNo: first + 3, Kind: cairn.AssistantText, Content: answer, MessageID: prompt + "m2"},
		}}
		return &cairn.Piece{Round: r, Full: true}
	}
	m := &cairn.Materialization{
		Sources: []*cairn.Session{{ID: "claude-1", Agent: cairn.AgentClaudeCode, Project: "/w"}},
		Pieces:  []*cairn.Piece{round(1, "first prompt", "first answer"), round(2, "second prompt", "second answer"), round(3, "third prompt", "third answer")},
	}
	x := &opencode.Exporter{Cwd: "/w", Summary: "SUMMARY", Provider: "p", Model: "mo", Now: time.UnixMilli(1_800_000_000_000),
		Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) { return p.Round.Blocks, nil }}
	s, err := x.Export(m)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"user text:SUMMARY text:first prompt",
		"assistant tool:bash=a.txt",
		"assistant text:first answer",
		"user text:second prompt",
		"assistant tool:bash=a.txt",
		"assistant text:second answer",
		"user text:third prompt",
		"assistant tool:bash=a.txt",
		"assistant text:third answer",
	}, "\n")
	if got := shape(s); got != want {
		t.Errorf("messages:\n%s\nwant:\n%s", got, want)
	}
	for _, msg := range s.Messages {
		if msg.Data["role"] != "assistant" {
			continue
		}
		parent := msg.Data["parentID"]
		var prompt *opencode.Message
		for _, u := range s.Messages {
			if u.Data["role"] == "user" && u.Created < msg.Created {
				prompt = u
			}
		}
		if parent != prompt.ID {
			t.Errorf("reply %s: parentID %v, want its prompt's %s", msg.ID, parent, prompt.ID)
		}
	}
}

// sample reads the real client's log of 1.18.33 as the store would: its
// lines numbered and its rounds.
func sample(t *testing.T) (*cairn.Session, []*cairn.Line, []*cairn.Round) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("testdata", "1.18.33", "logs", "*.jsonl"))
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	s := &cairn.Session{ID: strings.TrimSuffix(filepath.Base(paths[0]), ".jsonl"), Agent: cairn.AgentOpencode}
	b := opencode.Format{}.NewBuilder(&cairn.Session{ID: s.ID}, 0)
	var lines []*cairn.Line
	for i, raw := range bytes.SplitAfter(data, []byte("\n")) {
		if len(raw) == 0 {
			continue
		}
		l := &cairn.Line{No: i + 1, Raw: raw}
		b.Add(l)
		lines = append(lines, &cairn.Line{No: l.No, Raw: raw, Status: l.Status})
	}
	rounds, blocks, _ := b.Finish()
	all := cairn.CollectBlocks(blocks)
	for _, r := range rounds {
		for _, bl := range all {
			if bl.RoundSeq == r.Seq {
				r.Blocks = append(r.Blocks, bl)
			}
		}
	}
	return s, lines, rounds
}

// TestPartlyKeptRound keeps, of the real client's first round, its prompt
// and its steps from the second or the third on, as surgery does when a
// budget or compress-before keeps only a round's latest steps: the lines
// it keeps leave out the message records that precede a kept step's first
// part. Read again from those lines, every kept step is there, in order,
// and the export holds the round's prompt, its kept steps, then the next
// round's prompt.
func TestPartlyKeptRound(t *testing.T) {
	src, lines, rounds := sample(t)
	r1, r2 := rounds[1], rounds[2]
	steps := cairn.Steps(r1.Blocks, r1.LastLine)
	if len(steps) != 3 {
		t.Fatalf("round 1 has %d steps, want 3", len(steps))
	}
	linesOf := func(r *cairn.Round, keep []cairn.LineRange) []*cairn.Line {
		p := &cairn.Piece{Keep: keep}
		var out []*cairn.Line
		for _, l := range lines {
			if l.No >= r.FirstLine && l.No <= r.LastLine && p.Kept(l.No) {
				out = append(out, l)
			}
		}
		return out
	}
	for from, want := range map[int][]string{
		1: {"user text:\"make the notes file\"", "assistant tool:bash=2 notes.txt", "assistant text:WROTE-NOTES: two lines."},
		2: {"user text:\"make the notes file\"", "assistant text:WROTE-NOTES: two lines."},
	} {
		keep := []cairn.LineRange{{From: r1.FirstLine, To: steps[0].FirstLine - 1}, {From: steps[from].FirstLine, To: r1.LastLine}}
		p1 := &cairn.Piece{Round: r1, Full: true, Keep: keep, Lines: linesOf(r1, keep)}
		p2 := &cairn.Piece{Round: r2, Full: true, Lines: linesOf(r2, nil)}
		m := &cairn.Materialization{Sources: []*cairn.Session{src}, Fidelity: cairn.FullFidelity, Pieces: []*cairn.Piece{p1, p2}}

		var kinds []string
		for _, b := range surgery.PieceBlocks(opencode.Format{}, src, p1, m.Fidelity) {
			kinds = append(kinds, string(b.Kind))
		}
		wantKinds := "user-text tool-use tool-result assistant-text"
		if from == 2 {
			wantKinds = "user-text assistant-text"
		}
		if got := strings.Join(kinds, " "); got != wantKinds {
			t.Errorf("kept from step %d: blocks read again %s, want %s", from+1, got, wantKinds)
		}

		x := &opencode.Exporter{Cwd: "/w", Summary: "SUMMARY", Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) {
			return surgery.PieceBlocks(opencode.Format{}, src, p, m.Fidelity), nil
		}}
		s, err := x.Export(m)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(shape(s), "\n")
		want[0] = "user text:SUMMARY " + strings.TrimPrefix(want[0], "user ")
		if len(got) < len(want)+1 || strings.Join(got[:len(want)], "\n") != strings.Join(want, "\n") || got[len(want)] != "user text:\"fix the notes\"" {
			t.Errorf("kept from step %d, messages:\n%s\nwant first:\n%s\nuser text:\"fix the notes\"", from+1, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
