package codex_test

import (
	"os"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/codex"
)

// FuzzBuilder feeds arbitrary lines to the builder: it never panics, every
// line gets a round, and rounds come out in order.
func FuzzBuilder(f *testing.F) {
	for _, path := range samples(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range codex.SplitLines(data) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		head := [][]byte{raw}
		codex.IsRollout("x.jsonl", head)
		s := &cairn.Session{ID: "019a0000-aaaa-7bbb-8ccc-000000000009", Agent: cairn.AgentCodex}
		b := codex.Format{}.NewBuilder(s, 0)
		lines := []*cairn.Line{{No: 1, Raw: raw}, {No: 2, Raw: raw}}
		for _, l := range lines {
			b.Add(l)
		}
		rounds, seq, _ := b.Finish()
		blocks := cairn.CollectBlocks(seq)
		for i := 1; i < len(rounds); i++ {
			if rounds[i].Seq <= rounds[i-1].Seq {
				t.Fatalf("rounds out of order: %d then %d", rounds[i-1].Seq, rounds[i].Seq)
			}
		}
		for _, bl := range blocks {
			if bl.LineNo < 1 || bl.LineNo > 2 {
				t.Fatalf("block on line %d", bl.LineNo)
			}
		}
	})
}
