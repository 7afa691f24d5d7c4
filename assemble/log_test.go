package assemble_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/assemble"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/mock"
)

// realRounds parses a public transcript into rounds with their blocks.
func realRounds(tb testing.TB, path string) []*cairn.Round {
	tb.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		tb.Skipf("SKIPPING: %s not found (the shared public transcripts)", path)
	} else if err != nil {
		tb.Fatal(err)
	}
	raws := claudecode.SplitLines(data)
	s, err := claudecode.Format{}.Identify(path, raws)
	if err != nil {
		tb.Fatal(err)
	}
	b := claudecode.Format{}.NewBuilder(s, 0)
	for i, raw := range raws {
		b.Add(&cairn.Line{SessionID: s.ID, No: i + 1, Raw: raw})
	}
	rounds, seq, _ := b.Finish()
	blocks := cairn.CollectBlocks(seq)
	bySeq := map[int]*cairn.Round{}
	for _, r := range rounds {
		bySeq[r.Seq] = r
	}
	for _, bl := range blocks {
		bySeq[bl.RoundSeq].Blocks = append(bySeq[bl.RoundSeq].Blocks, bl)
	}
	return rounds[1:] // round 0 is never a frame's
}

// TestLogCarriesRounds: the current frame's section carries its own last
// rounds (prompt, an index line per step, answer) when the budget allows,
// with a subagent's rounds naming the round that spawned them; a tight
// budget degrades it to index lines or one line, within the budget. The
// rounds are a real tool-heavy session's.
func TestLogCarriesRounds(t *testing.T) {
	log := realRounds(t, "../../shared/testdata/transcripts/marot__spotter/tool_heavy.jsonl")
	v := appView()
	v.Log = log
	sub := &cairn.Round{SessionID: log[0].SessionID + "-agent-a881341", Seq: 1, UserPreview: "Explore the renderer", AgentPreview: "Found it."}
	v.Log = append([]*cairn.Round{sub}, v.Log...)
	v.Spawns = map[string]string{sub.SessionID: "5f0c2a1e#2"}
	ctx, err := assemble.Build(v, cairn.DefaultBudget(), assemble.XML, assemble.MustBPE())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--- round ", "prompt: ", "answer: ", " Bash `", "agent-a881341#1 (subagent spawned by 5f0c2a1e#2)"} {
		if !strings.Contains(ctx.Text, want) {
			t.Errorf("the log lacks %q", want)
		}
	}
	compare(t, "log-rounds.xml.golden", ctx.Text)

	tight := cairn.Budget{Tokens: 500, Chars: 2000, Allocations: cairn.DefaultBudget().Allocations}
	ctx, err = assemble.Build(v, tight, assemble.XML, assemble.MustBPE())
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Tokens > tight.Tokens || ctx.Chars > tight.Chars {
		t.Fatalf("%d tokens, %d chars over %+v", ctx.Tokens, ctx.Chars, tight)
	}
	if strings.Contains(ctx.Text, "--- round ") {
		t.Errorf("a tight budget still carries whole rounds:\n%s", ctx.Text)
	}
}

// TestViewReadsTheLastRounds: the Assembler reads only the rounds the log
// can show (a count of the rest), and the context is the same as from a
// view holding every round of the frame: "(N earlier rounds)" counts them.
func TestViewReadsTheLastRounds(t *testing.T) {
	full := appView()
	full.Log = nil
	for seq := 1; seq <= 300; seq++ {
		full.Log = append(full.Log, &cairn.Round{SessionID: "5f0c2a1e-8d4b", Seq: seq, FirstLine: seq, LastLine: seq,
			UserPreview: fmt.Sprintf("prompt %d", seq), AgentPreview: fmt.Sprintf("answer %d", seq), FrameID: full.Current.ID})
	}
	var asked []cairn.RoundFilter
	rounds := &mock.RoundStore{
		FindRoundsFn: func(_ context.Context, f cairn.RoundFilter) ([]*cairn.Round, error) {
			asked = append(asked, f)
			if f.WithBlocks {
				var out []*cairn.Round
				for _, r := range full.Log[f.FromSeq-1 : f.ToSeq] {
					c := *r
					c.Blocks = []*cairn.Block{{Kind: cairn.UserText, Content: c.UserPreview}, {Kind: cairn.AssistantText, Content: c.AgentPreview}}
					out = append(out, &c)
				}
				return out, nil
			}
			var out []*cairn.Round
			for _, r := range full.Log[len(full.Log)-f.Last:] {
				c := *r
				out = append(out, &c)
			}
			return out, nil
		},
		CountRoundsFn: func(context.Context, cairn.RoundFilter) (int, error) { return len(full.Log), nil },
	}
	frames := &mock.FrameStore{FindFramesFn: func(context.Context) ([]*cairn.Frame, error) { return appTree(), nil }}
	a := &assemble.Assembler{Frames: frames, Rounds: rounds}
	req := assemble.Request{FrameID: full.Current.ID, Budget: cairn.DefaultBudget(), Format: assemble.XML, Files: full.Files, Relay: full.Relay}
	v, err := a.View(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || asked[0].Last == 0 || asked[0].Last >= len(full.Log) {
		t.Fatalf("FindRounds asked %+v: want only the last rounds, then one range of them with their blocks", asked)
	}
	if r := asked[1]; !r.WithBlocks || r.SessionID == "" || r.ToSeq-r.FromSeq+1 > assemble.LogRounds {
		t.Fatalf("the rounds carried whole were read with %+v: want one query over the last %d", r, assemble.LogRounds)
	}
	// The rounds carried whole are read with their blocks either way.
	for i, r := range v.Log {
		full.Log[len(full.Log)-len(v.Log)+i] = r
	}
	full.Mission = nil
	for _, b := range []cairn.Budget{cairn.DefaultBudget(), {Chars: 2000, Allocations: cairn.DefaultBudget().Allocations}} {
		got, err := assemble.Build(v, b, assemble.XML, assemble.Estimate)
		if err != nil {
			t.Fatal(err)
		}
		want, err := assemble.Build(full, b, assemble.XML, assemble.Estimate)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text {
			t.Errorf("budget %+v: the context from the last rounds differs from the whole log's:\n%s\nwant:\n%s", b, got.Text, want.Text)
		}
	}
	got, _ := assemble.Build(v, cairn.DefaultBudget(), assemble.XML, assemble.Estimate)
	if !strings.Contains(got.Text, fmt.Sprintf("(%d earlier rounds)", 300-20-assemble.LogRounds)) {
		t.Errorf("the log does not count the rounds before it:\n%s", got.Text)
	}
}
