package opencode_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/opencode"
)

// FuzzBuilder feeds arbitrary lines to the builder after a session record:
// it never panics, every line gets a round, rounds come out in order, and
// every block names a line it came from.
func FuzzBuilder(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", "logs", "*.jsonl"))
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			if len(l) > 0 {
				f.Add(l)
			}
		}
	}
	f.Add([]byte(`{"opencode":"part","id":"prt_1","data":{"type":"tool","state":null}}`))
	f.Add([]byte(`{"opencode":"message","id":"msg_1","data":[]}`))
	f.Add([]byte("{\"opencode\":\"part\",\"id\":\"\xff\"}"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		opencode.IsLog("x.jsonl", [][]byte{raw})
		_, _ = opencode.Format{}.Identify("ses_x.jsonl", [][]byte{raw})
		s := &cairn.Session{ID: "ses_fuzz", Agent: cairn.AgentOpencode}
		b := opencode.Format{}.NewBuilder(s, 0)
		lines := []*cairn.Line{
			{No: 1, Raw: []byte(`{"opencode":"session","id":"ses_fuzz","row":{"id":"ses_fuzz"}}`)},
			{No: 2, Raw: raw}, {No: 3, Raw: raw},
		}
		for _, l := range lines {
			b.Add(l)
			if l.RoundSeq < 0 {
				t.Fatalf("line %d in round %d", l.No, l.RoundSeq)
			}
		}
		rounds, seq, _ := b.Finish()
		for i := 1; i < len(rounds); i++ {
			if rounds[i].Seq <= rounds[i-1].Seq {
				t.Fatalf("rounds out of order: %d then %d", rounds[i-1].Seq, rounds[i].Seq)
			}
		}
		for _, bl := range cairn.CollectBlocks(seq) {
			if bl.LineNo < 2 || bl.LineNo > 3 {
				t.Fatalf("block on line %d", bl.LineNo)
			}
		}
	})
}
