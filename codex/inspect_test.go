package codex_test

import (
	"fmt"
	"os"
	"testing"

	"cairn"
	"cairn/codex"
)

func TestInspect(t *testing.T) {
	path := os.Getenv("CX_FILE")
	if path == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(path)
	s, err := codex.Format{}.Identify(path, codex.SplitLines(data))
	if err != nil {
		t.Fatal(err)
	}
	b := codex.Format{}.NewBuilder(s, 0)
	off := 0
	for i, raw := range codex.SplitLines(data) {
		l := &cairn.Line{No: i + 1, Raw: raw}
		if p := b.Add(l); p != "" {
			fmt.Println("problem", i+1, p)
		}
		off += len(raw)
	}
	rounds, blocks, msgs := b.Finish()
	for _, r := range rounds {
		fmt.Printf("round %d lines %d-%d %q → %q tools %v usage %+v\n", r.Seq, r.FirstLine, r.LastLine, r.UserPreview, r.AgentPreview, r.Tools, r.Usage)
		var rb []*cairn.Block
		for _, bl := range blocks {
			if bl.RoundSeq == r.Seq {
				rb = append(rb, bl)
			}
		}
		for _, st := range cairn.Steps(rb, r.LastLine) {
			fmt.Println("   ", st.IndexLine())
		}
	}
	fmt.Println(len(msgs), "messages")
}
