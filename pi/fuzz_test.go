package pi_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/pi"
)

// FuzzBuilder feeds arbitrary lines to the reader after a header: it never
// panics, every line gets a round no earlier than the line before's, every
// block names a line that was read, rounds come out in order, and reading
// again from any round's first line builds the same rounds.
func FuzzBuilder(f *testing.F) {
	for _, path := range samples(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(doc))
	f.Fuzz(func(t *testing.T, data []byte) {
		raws := splitLines(data)
		pi.IsSession("x.jsonl", raws)
		_, _ = pi.Format{}.Identify("x.jsonl", raws)
		s := &cairn.Session{ID: "s", Agent: cairn.AgentPi}
		lines := toLines("s", raws)
		for _, l := range lines {
			l.Raw = bytes.Clone(l.Raw)
		}
		rounds, blocks := build(s, lines, 0)
		for i := 1; i < len(rounds); i++ {
			if rounds[i].Seq <= rounds[i-1].Seq {
				t.Fatalf("rounds out of order: %d then %d", rounds[i-1].Seq, rounds[i].Seq)
			}
		}
		for i := 1; i < len(lines); i++ {
			if lines[i].RoundSeq < lines[i-1].RoundSeq {
				t.Fatalf("line %d in round %d after round %d", i+1, lines[i].RoundSeq, lines[i-1].RoundSeq)
			}
		}
		for _, bl := range blocks {
			if bl.LineNo < 1 || bl.LineNo > len(lines) {
				t.Fatalf("block on line %d of %d", bl.LineNo, len(lines))
			}
		}
		full := render(rounds, blocks)
		_ = full
		for _, r := range rounds {
			if r.Seq == 0 || r.FirstLine < 1 {
				continue
			}
			var replay []*cairn.Line
			for _, l := range lines[r.FirstLine-1:] {
				replay = append(replay, &cairn.Line{SessionID: "s", No: l.No, Raw: l.Raw})
			}
			got, gotBlocks := build(s, replay, r.Seq)
			if g, w := render(got, gotBlocks), renderFrom(rounds, blocks, r.Seq); g != w {
				t.Fatalf("read again from round %d:\n%s\nwant\n%s", r.Seq, g, w)
			}
		}
	})
}
