package opencode_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/opencode"
)

// crossed is a Claude Code round as blocks: a prompt, a step with text and
// a Bash call, a step with a call no opencode tool takes, a step whose call
// was never answered, thinking and an answer.
func crossed() *cairn.Materialization {
	r := &cairn.Round{SessionID: "claude-1", Seq: 1, FirstLine: 1, LastLine: 9}
	blocks := []*cairn.Block{
		{LineNo: 1, Kind: cairn.UserText, Content: "count the lines"},
		{LineNo: 2, Kind: cairn.Thinking, Content: "hmm", MessageID: "m1"},
		{LineNo: 2, Kind: cairn.AssistantText, Content: "Counting.", MessageID: "m1"},
		{LineNo: 3, Kind: cairn.ToolUse, ToolName: "Bash", ToolID: "t1", Content: `{"command":"wc -l a.txt"}`, MessageID: "m1"},
		{LineNo: 4, Kind: cairn.ToolResult, ToolName: "Bash", ToolID: "t1", Content: "3 a.txt"},
		{LineNo: 5, Kind: cairn.ToolUse, ToolName: "WebSearch", ToolID: "t2", Content: `{"query":"x"}`, MessageID: "m2"},
		{LineNo: 6, Kind: cairn.ToolResult, ToolName: "WebSearch", ToolID: "t2", Content: "nothing"},
		{LineNo: 7, Kind: cairn.ToolUse, ToolName: "Read", ToolID: "t3", Content: `{"file_path":"/a"}`, MessageID: "m3"},
		{LineNo: 8, Kind: cairn.AssistantText, Content: "Three lines.", MessageID: "m4"},
	}
	m := &cairn.Materialization{
		Sources: []*cairn.Session{{ID: "claude-1", Agent: cairn.AgentClaudeCode, Project: "/w"}},
		Pieces:  []*cairn.Piece{{Round: r, Full: true}},
	}
	m.Pieces[0].Round.Blocks = blocks
	return m
}

// TestExport checks the session an export builds: the summary, then the
// prompt, one assistant message per step, a mapped call as one completed
// bash part, an unmapped one as text, the unanswered call and the thinking
// left out and counted, and the session ending on the answer.
func TestExport(t *testing.T) {
	m := crossed()
	x := &opencode.Exporter{Cwd: "/w", Summary: "SUMMARY", Provider: "p", Model: "mo", Now: time.UnixMilli(1_800_000_000_000),
		Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) { return p.Round.Blocks, nil }}
	s, err := x.Export(m)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range s.Messages {
		line := msg.Data["role"].(string)
		for _, p := range msg.Parts {
			switch p.Data["type"] {
			case "text":
				line += " text:" + strings.SplitN(p.Data["text"].(string), "\n", 2)[0]
			case "tool":
				st := p.Data["state"].(map[string]any)
				line += " tool:" + p.Data["tool"].(string) + "=" + st["output"].(string)
			}
		}
		if f, ok := msg.Data["finish"]; ok {
			line += " finish:" + f.(string)
		}
		got = append(got, line)
	}
	want := []string{
		"user text:SUMMARY text:count the lines",
		"assistant text:Counting. tool:bash=3 a.txt finish:tool-calls",
		"assistant text:[called WebSearch with {\"query\":\"x\"}] finish:stop",
		"assistant text:Three lines. finish:stop",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	c := x.Crossed
	if c.CallsMapped != 1 || c.CallsAsText != 1 || c.ThinkingDropped != 1 || c.CallsUnanswered != 1 {
		t.Errorf("crossed %+v, want 1 mapped, 1 as text, 1 thinking dropped, 1 unanswered", c)
	}
	for i := 1; i < len(s.Messages); i++ {
		if s.Messages[i].ID <= s.Messages[i-1].ID {
			t.Errorf("message ids out of order: %s then %s", s.Messages[i-1].ID, s.Messages[i].ID)
		}
	}
	if !strings.HasPrefix(s.ID, "ses_") || len(s.ID) != len("ses_debb20e5bffev9M8FboiuT8S8K") {
		t.Errorf("session id %q is not of opencode's form", s.ID)
	}
}

// TestWriteSession writes an export into a copy of the real client's
// store, reads it back as the client's other sessions are read, and checks
// that a write that fails (the same session again) leaves the store as it
// was.
func TestWriteSession(t *testing.T) {
	ctx := context.Background()
	dir := copyDB(t, "1.18.33")
	target, err := opencode.ReadTarget(ctx, dir, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if target.Provider != "fake" || target.Model != "fake-model" || target.Version != "1.18.33" || target.ProjectID != "global" {
		t.Errorf("target %+v", target)
	}
	x := &opencode.Exporter{Cwd: "/w", Summary: "SUMMARY", Provider: target.Provider, Model: target.Model,
		Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) { return p.Round.Blocks, nil }}
	s, err := x.Export(crossed())
	if err != nil {
		t.Fatal(err)
	}
	if err := opencode.WriteSession(ctx, dir, target, x, s); err != nil {
		t.Fatal(err)
	}
	logs, err := opencode.ReadStore(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var got *opencode.Log
	for _, l := range logs {
		if l.ID == s.ID {
			got = l
		}
	}
	if got == nil || len(got.Items) != 10 || got.Settled != len(got.Items) {
		t.Fatalf("read back %+v, want 4 messages and 6 parts, all settled", got)
	}
	// Again under a new session id, every document new but the last
	// part: its insert fails after the session and the rest were written
	// in the transaction, which must take them all back.
	s.ID += "x"
	for i, m := range s.Messages {
		m.ID += "x"
		for j, p := range m.Parts {
			if i < len(s.Messages)-1 || j < len(m.Parts)-1 {
				p.ID += "x"
			}
		}
	}
	err = opencode.WriteSession(ctx, dir, target, x, s)
	if cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("writing the session twice: %v", err)
	}
	again, err := opencode.ReadStore(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if n, m := items(logs), items(again); len(again) != len(logs) || n != m {
		t.Errorf("a failed write changed the store: %d sessions, %d documents; before %d, %d", len(again), m, len(logs), n)
	}
}

func items(logs []*opencode.Log) int {
	n := 0
	for _, l := range logs {
		n += len(l.Items)
	}
	return n
}

// TestExportKeepsDocuments exports the second round of the real client's
// session whole, at full fidelity: its messages and parts are the client's
// own documents (usage, cost, finish, step parts, the tool parts' states)
// under new ids, each reply's parentID its prompt's new id.
func TestExportKeepsDocuments(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "1.18.33", "logs", "*.jsonl"))
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	s := &cairn.Session{ID: strings.TrimSuffix(filepath.Base(paths[0]), ".jsonl"), Agent: cairn.AgentOpencode}
	b := opencode.Format{}.NewBuilder(s, 0)
	var lines []*cairn.Line
	for i, raw := range bytes.SplitAfter(data, []byte("\n")) {
		if len(raw) == 0 {
			continue
		}
		l := &cairn.Line{No: i + 1, Raw: raw}
		b.Add(l)
		lines = append(lines, l)
	}
	rounds, _, _ := b.Finish()
	r := rounds[2]
	var own []*cairn.Line
	for _, l := range lines {
		if l.RoundSeq == r.Seq {
			own = append(own, l)
		}
	}
	m := &cairn.Materialization{Sources: []*cairn.Session{s}, Fidelity: cairn.FullFidelity,
		Pieces: []*cairn.Piece{{Round: r, Full: true, Lines: own}}}
	x := &opencode.Exporter{Cwd: "/w", Summary: "SUMMARY", Blocks: func(*cairn.Piece) ([]*cairn.Block, error) {
		t.Fatal("a whole opencode round went through its blocks")
		return nil, nil
	}}
	out, err := x.Export(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) != 5 {
		t.Fatalf("%d messages, want the summary, the prompt and 3 replies", len(out.Messages))
	}
	prompt := out.Messages[1]
	var kinds []string
	for _, msg := range out.Messages[2:] {
		if msg.Data["parentID"] != prompt.ID {
			t.Errorf("reply %s: parentID %v, want the prompt's new id %s", msg.ID, msg.Data["parentID"], prompt.ID)
		}
		if msg.Data["tokens"] == nil || msg.Data["cost"] == nil || msg.Data["finish"] == nil {
			t.Errorf("reply %s lost its usage, cost or finish: %v", msg.ID, msg.Data)
		}
		for _, p := range msg.Parts {
			kinds = append(kinds, p.Data["type"].(string))
			if p.Data["id"] != nil || p.Data["messageID"] != nil {
				t.Errorf("part %s keeps its old ids", p.ID)
			}
		}
	}
	want := "step-start tool step-finish step-start tool step-finish step-start text step-finish"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("parts %s, want %s", got, want)
	}
	if x.Crossed != (opencode.Crossing{}) {
		t.Errorf("crossed %+v, want nothing", x.Crossed)
	}
}
