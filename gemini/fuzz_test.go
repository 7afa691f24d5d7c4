package gemini_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/gemini"
)

// FuzzBuilder feeds arbitrary input to the reader, as JSONL lines and as a
// document's: it never panics, every line gets a round no later than the
// next line's, every block names a line that was read, and rounds come out
// in order.
func FuzzBuilder(f *testing.F) {
	for _, path := range samples(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range splitLines(data) {
			f.Add(l, false)
		}
		f.Add(data, true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, document bool) {
		var raws [][]byte
		if document {
			raws = splitLines(append([]byte("{\n"), raw...))
		} else {
			raws = [][]byte{raw, raw}
		}
		gemini.IsSession("session-x.jsonl", raws)
		_, _ = gemini.Format{}.Identify("session-x.json", raws)
		s := &cairn.Session{ID: "s", Agent: cairn.AgentGemini}
		b := gemini.Format{}.NewBuilder(s, 0)
		var lines []*cairn.Line
		for i, r := range raws {
			l := &cairn.Line{No: i + 1, Raw: bytes.Clone(r)}
			lines = append(lines, l)
			b.Add(l)
		}
		rounds, seq, _ := b.Finish()
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
		for _, bl := range cairn.CollectBlocks(seq) {
			if bl.LineNo < 1 || bl.LineNo > len(lines) {
				t.Fatalf("block on line %d of %d", bl.LineNo, len(lines))
			}
		}
	})
}
