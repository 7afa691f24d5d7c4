package retention_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/retention"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// parse reads a transcript into its session and rounds with blocks.
func parse(tb testing.TB, path string) (*cairn.Session, []*cairn.Round, [][]byte) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Skipf("SKIPPING: %v", err)
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
	return s, rounds[1:], raws
}

// TestProbesGolden pins the probes of real sessions: a sample the real
// client made and a public tool-heavy one. Refresh: go test ./retention -update
func TestProbesGolden(t *testing.T) {
	for _, c := range []struct{ name, path string }{
		{"sample-f03", "../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f03.jsonl"},
		{"spotter-tool-heavy", "../../shared/testdata/transcripts/marot__spotter/tool_heavy.jsonl"},
		{"spotter-long-258c", "../../shared/testdata/transcripts/marot__spotter/long/258c7280-ae70-4798-800f-63464d01a85d.jsonl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, rounds, _ := parse(t, c.path)
			probes := retention.Probes(s, rounds)
			if len(probes) == 0 {
				t.Fatal("no probes")
			}
			got, _ := json.MarshalIndent(probes, "", "  ")
			golden := filepath.Join("testdata", c.name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
				t.Errorf("probes differ from %s (run with -update and review the diff)", golden)
			}
			again := retention.Probes(s, rounds)
			if g2, _ := json.Marshal(again); string(g2) != string(mustJSON(probes)) {
				t.Error("probes are not deterministic")
			}
		})
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// TestCompactionLosesWhatOriginalKeeps measures, on a long auto-compacted
// session, that the client's own compaction summary keeps less than the
// session resumed as is, and that the resumed original starts at the last
// compaction (it holds less than the whole session).
func TestCompactionLosesWhatOriginalKeeps(t *testing.T) {
	s, rounds, raws := parse(t, "../../shared/testdata/transcripts/marot__spotter/long/258c7280-ae70-4798-800f-63464d01a85d.jsonl")
	probes := retention.Probes(s, rounds)
	view := claudecode.LoadedView(raws)
	if view.Boundaries == 0 || view.FromLine == 1 || view.Summary == "" {
		t.Fatalf("want a compacted session: %d boundaries, from line %d", view.Boundaries, view.FromLine)
	}
	var all strings.Builder
	for _, r := range rounds {
		for _, b := range r.Blocks {
			all.WriteString(b.Content + "\n")
			if b.Kind == cairn.ToolUse { // its input is JSON: the command unescaped
				all.WriteString(cairn.ToolInputString(b.Content, "command") + "\n")
			}
		}
	}
	steps := retention.StepRefs(rounds)
	whole := retention.Measure(probes, steps, &retention.Variant{Name: "whole", Text: all.String()})
	orig := retention.Measure(probes, steps, &retention.Variant{Name: "original", Text: view.Text})
	summary := retention.Measure(probes, steps, &retention.Variant{Name: "summary", Text: view.Summary})
	t.Logf("probes %d: whole %d, original %d, summary %d in context", len(probes), whole.Lenient.InContext, orig.Lenient.InContext, summary.Lenient.InContext)
	if whole.Lenient.InContext != len(probes) {
		t.Errorf("every probe's answer must be in the whole session: %d of %d", whole.Lenient.InContext, len(probes))
	}
	if !(summary.Lenient.InContext < orig.Lenient.InContext && orig.Lenient.InContext < whole.Lenient.InContext) {
		t.Errorf("want summary < original < whole, got %d, %d, %d", summary.Lenient.InContext, orig.Lenient.InContext, whole.Lenient.InContext)
	}
	if summary.Strict.InContext != 0 || summary.Strict.OneHop != 0 {
		t.Errorf("a variant that attributes no text to a step keeps nothing strictly: %+v", summary.Strict)
	}
}

type askerFunc func(ctx context.Context, text, question string) (string, error)

func (f askerFunc) Ask(ctx context.Context, text, question string) (string, error) {
	return f(ctx, text, question)
}

// TestAsk checks the rule that judges a model's answers: a reply holding
// the answer (folded) counts, and the sample spreads over the probes.
func TestAsk(t *testing.T) {
	probes := []*retention.Probe{
		{Category: retention.Artifact, Question: "q1", Answer: "a/B.go", Round: 1, Step: 1},
		{Category: retention.Command, Question: "q2", Answer: "make test", Round: 1, Step: 2},
		{Category: retention.Number, Question: "q3", Answer: "12 ms", Round: 2, Step: 1},
		{Category: retention.Error, Question: "q4", Answer: "denied", Round: 2, Step: 2},
	}
	var asked []string
	a := askerFunc(func(_ context.Context, text, q string) (string, error) {
		asked = append(asked, q)
		if text != "ctx" {
			t.Errorf("context %q", text)
		}
		return map[string]string{"q1": "It edited A/b.go.", "q3": "about 12  MS"}[q], nil
	})
	s, err := retention.Ask(context.Background(), a, probes, &retention.Variant{Name: "v", Text: "ctx"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Strict.InContext != 2 || s.Strict.Lost != 2 || s.ByCategory[retention.Number].Strict.InContext != 1 || s.Lenient.Probes != 0 {
		t.Errorf("got %+v, lenient %+v", s.Strict, s.Lenient)
	}
	asked = nil
	if _, err := retention.Ask(context.Background(), a, probes, &retention.Variant{Name: "v", Text: "ctx"}, 2); err != nil {
		t.Fatal(err)
	}
	if strings.Join(asked, ",") != "q1,q3" {
		t.Errorf("a sample of 2 asked %v, want q1,q3", asked)
	}
}
