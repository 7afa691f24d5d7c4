package claudecode_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/google/go-cmp/cmp"
)

// seedFuzz adds the sample transcripts (whole, when small) and their
// lines to f's corpus.
func seedFuzz(f *testing.F, whole bool) {
	for _, path := range append(samples(f), shared(f)...) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if whole {
			if len(data) < 16<<10 {
				f.Add(data)
			}
			continue
		}
		for _, l := range claudecode.SplitLines(data) {
			if len(l) < 8<<10 {
				f.Add(l)
			}
		}
	}
}

// FuzzLine: no line, however broken, makes the builder panic, and every
// line gets a status and a round.
func FuzzLine(f *testing.F) {
	seedFuzz(f, false)
	f.Add([]byte("{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"content\":[{\"type\":\"image\"}]}]}}\n"))
	f.Add([]byte("\xff\xfe\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		s := &cairn.Session{ID: "s", Agent: cairn.AgentClaudeCode}
		b := claudecode.Format{}.NewBuilder(s, 0)
		l := &cairn.Line{SessionID: "s", No: 1, Raw: raw}
		b.Add(l)
		if l.Status == "" {
			t.Fatal("no status")
		}
		rounds, seq, _ := b.Finish()
		blocks := cairn.CollectBlocks(seq)
		if len(rounds) != 1 || rounds[0].FirstLine != 1 {
			t.Fatalf("rounds = %+v", rounds)
		}
		for _, bl := range blocks {
			if bl.RoundSeq != l.RoundSeq {
				t.Fatalf("block in round %d, line in %d", bl.RoundSeq, l.RoundSeq)
			}
		}
		_ = claudecode.Preview(string(raw))
	})
}

// parsed is everything a parse derives, comparable with cmp.
type parsed struct {
	Lines  []cairn.Line
	Rounds []*cairn.Round
	Blocks []*cairn.Block
	Usage  []*cairn.MessageUsage
}

func parseAll(data []byte, from int, prefix *parsed) parsed {
	s := &cairn.Session{ID: "s", Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport}
	raws := claudecode.SplitLines(data)
	var p parsed
	b := claudecode.Format{}.NewBuilder(s, from)
	start := 0
	if prefix != nil && len(prefix.Rounds) > 0 {
		// Replay from the first line of the prefix's last round, as an
		// incremental import does.
		start = prefix.Rounds[len(prefix.Rounds)-1].FirstLine - 1
	}
	for i := start; i < len(raws); i++ {
		l := &cairn.Line{SessionID: "s", No: i + 1, Raw: raws[i]}
		b.Add(l)
		p.Lines = append(p.Lines, *l)
	}
	rounds, blocks, usage := b.Finish()
	p.Rounds, p.Blocks, p.Usage = rounds, cairn.CollectBlocks(blocks), usage
	return p
}

// FuzzRoundBuilder: parse → export → parse is stable, and building a
// transcript in two imports (the second replaying the first's last round)
// gives exactly what one import gives.
func FuzzRoundBuilder(f *testing.F) {
	seedFuzz(f, true)
	f.Fuzz(fuzzBody)
}

func fuzzBody(t *testing.T, data []byte) {
	{
		whole := parseAll(data, 0, nil)
		var export bytes.Buffer
		for _, l := range whole.Lines {
			export.Write(l.Raw)
		}
		if !bytes.Equal(export.Bytes(), data) {
			t.Fatal("lines do not concatenate to the input")
		}
		if again := parseAll(export.Bytes(), 0, nil); summary(again) != summary(whole) {
			t.Fatalf("parse of the export differs:\n%s", cmp.Diff(whole, again))
		}
		raws := claudecode.SplitLines(data)
		if len(raws) < 2 {
			return
		}
		cut := len(raws) / 2
		var head []byte
		for _, r := range raws[:cut] {
			head = append(head, r...)
		}
		first := parseAll(head, 0, nil)
		last := first.Rounds[len(first.Rounds)-1]
		second := parseAll(data, last.Seq, &first)

		var combined parsed
		for _, r := range first.Rounds {
			if r.Seq < last.Seq {
				combined.Rounds = append(combined.Rounds, r)
			}
		}
		combined.Rounds = append(combined.Rounds, second.Rounds...)
		for _, bl := range first.Blocks {
			if bl.RoundSeq < last.Seq {
				combined.Blocks = append(combined.Blocks, bl)
			}
		}
		combined.Blocks = append(combined.Blocks, second.Blocks...)
		for _, u := range first.Usage {
			if u.RoundSeq < last.Seq {
				combined.Usage = append(combined.Usage, u)
			}
		}
		combined.Usage = append(combined.Usage, second.Usage...)
		want := whole
		want.Lines = nil
		if summary(want) != summary(combined) {
			t.Fatalf("two imports differ from one:\n%s", cmp.Diff(want, combined))
		}
	}
}

func summary(p parsed) string {
	b, _ := json.Marshal(p)
	return string(b)
}
