package codex_test

import (
	"os"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/codex"
)

// BenchmarkBuilder parses the real client's sample.
func BenchmarkBuilder(b *testing.B) {
	data, err := os.ReadFile("../testdata/codex/three-rounds.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	raws := codex.SplitLines(data)
	s, _ := codex.Format{}.Identify("x.jsonl", raws)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		bl := codex.Format{}.NewBuilder(s, 0)
		for i, raw := range raws {
			bl.Add(&cairn.Line{No: i + 1, Raw: raw})
		}
		bl.Finish()
	}
}
