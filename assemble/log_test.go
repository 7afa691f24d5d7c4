package assemble_test

import (
	"os"
	"strings"
	"testing"

	"cairn"
	"cairn/assemble"
	"cairn/claudecode"
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
	rounds, blocks, _ := b.Finish()
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
