package pi_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/pi"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// samples are the sessions the real pi wrote (internal/pitest's
// TestGenerateSamples): formats 3 (with a branch, and a fork), 2 and 1.
func samples(t testing.TB) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join("testdata", "*", "*.jsonl"))
	if len(m) < 4 {
		t.Fatalf("samples: found %v, want the four the generator writes", m)
	}
	return m
}

func splitLines(data []byte) [][]byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func toLines(id string, raws [][]byte) []*cairn.Line {
	var lines []*cairn.Line
	var off int64
	for i, r := range raws {
		lines = append(lines, &cairn.Line{SessionID: id, No: i + 1, Offset: off, Raw: r})
		off += int64(len(r))
	}
	return lines
}

// build reads lines as an import does, with the builder of round fromSeq.
func build(s *cairn.Session, lines []*cairn.Line, fromSeq int) ([]*cairn.Round, []*cairn.Block) {
	b := pi.Format{}.NewBuilder(s, fromSeq)
	for _, l := range lines {
		b.Add(l)
	}
	rounds, blocks, _ := b.Finish()
	return rounds, cairn.CollectBlocks(blocks)
}

func read(t *testing.T, path string) (*cairn.Session, []byte, []*cairn.Line) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raws := splitLines(data)
	if !pi.IsSession(path, raws) {
		t.Fatalf("%s: not recognised as a pi session", path)
	}
	s, err := pi.Format{}.Identify(path, raws)
	if err != nil {
		t.Fatal(err)
	}
	return s, data, toLines(s.ID, raws)
}

func render(rounds []*cairn.Round, blocks []*cairn.Block) string {
	var b strings.Builder
	for _, r := range rounds {
		fmt.Fprintf(&b, "round %d lines %d-%d tools %v prompt %q answer %q usage %d/%d\n", r.Seq, r.FirstLine, r.LastLine, r.Tools, r.UserPreview, r.AgentPreview, r.Usage.Input, r.Usage.Output)
		for _, bl := range blocks {
			if bl.RoundSeq != r.Seq {
				continue
			}
			fmt.Fprintf(&b, "  %d line %d %s %s %s: %s (error=%v step=%q tool_id=%q)\n", bl.Index, bl.LineNo, bl.Kind, bl.Role, bl.ToolName, pi.Preview(bl.Content), bl.IsError, bl.MessageID, bl.ToolID)
		}
	}
	return b.String()
}

// TestSamples reads each release's sample: every line kept (their bytes
// are the file) and OK, lines' rounds in order, each tool call answered
// once, the session named by its header, and the golden rendering of
// rounds and blocks.
func TestSamples(t *testing.T) {
	for _, path := range samples(t) {
		name := filepath.Base(filepath.Dir(path)) + "-" + strings.SplitN(filepath.Base(path), "_", 2)[0]
		t.Run(name, func(t *testing.T) {
			s, data, lines := read(t, path)
			rounds, blocks := build(s, lines, 0)
			var joined []byte
			prev := 0
			for _, l := range lines {
				joined = append(joined, l.Raw...)
				if l.Status != cairn.LineOK {
					t.Errorf("line %d: status %s", l.No, l.Status)
				}
				if l.RoundSeq < prev {
					t.Errorf("line %d: round %d after round %d", l.No, l.RoundSeq, prev)
				}
				prev = l.RoundSeq
			}
			if !bytes.Equal(joined, data) {
				t.Fatal("the lines are not the file")
			}
			calls, results := map[string]int{}, map[string]int{}
			for _, b := range blocks {
				switch b.Kind {
				case cairn.ToolUse:
					calls[b.ToolID]++
				case cairn.ToolResult:
					results[b.ToolID]++
				}
			}
			if len(calls) < 2 {
				t.Errorf("%d tool calls, want at least 2", len(calls))
			}
			for id, n := range calls {
				if n != 1 || results[id] != 1 {
					t.Errorf("call %s: %d calls, %d results, want one each", id, n, results[id])
				}
			}
			if s.Agent != cairn.AgentPi || s.Project != "/home/user/work" || !strings.Contains(string(lines[0].Raw), s.ID) {
				t.Errorf("session %+v", s)
			}
			golden := filepath.Join("testdata", name+".golden")
			got := render(rounds, blocks)
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("rounds differ from %s (run with -update to accept):\n%s", golden, got)
			}
		})
	}
}

// TestReplay checks the import's contract: the rounds built from round
// fromSeq's lines and what follows are those a full read builds, for every
// round of every sample.
func TestReplay(t *testing.T) {
	for _, path := range samples(t) {
		s, _, lines := read(t, path)
		full, fullBlocks := build(s, lines, 0)
		for _, r := range full {
			if r.Seq == 0 {
				continue
			}
			var replay []*cairn.Line
			for _, l := range lines[r.FirstLine-1:] {
				replay = append(replay, &cairn.Line{SessionID: s.ID, No: l.No, Offset: l.Offset, Raw: l.Raw})
			}
			rounds, blocks := build(s, replay, r.Seq)
			want := renderFrom(full, fullBlocks, r.Seq)
			if got := render(rounds, blocks); got != want {
				t.Errorf("%s from round %d:\n%s\nwant\n%s", path, r.Seq, got, want)
			}
		}
	}
}

// renderFrom renders a full read's rounds from seq on.
func renderFrom(rounds []*cairn.Round, blocks []*cairn.Block, seq int) string {
	var rs []*cairn.Round
	for _, r := range rounds {
		if r.Seq >= seq {
			rs = append(rs, r)
		}
	}
	return render(rs, blocks)
}

// TestPartRound reads a round from some of its lines, as surgery does
// for a round kept in part (its prompt and its latest steps): every block
// of the lines kept stays in that round, none is taken for a branch.
func TestPartRound(t *testing.T) {
	for _, path := range samples(t) {
		s, _, lines := read(t, path)
		full, _ := build(s, lines, 0)
		for _, r := range full {
			if r.Seq == 0 || r.LastLine-r.FirstLine < 3 {
				continue
			}
			part := []*cairn.Line{lines[r.FirstLine-1]}
			for _, l := range lines[r.FirstLine+1 : r.LastLine] {
				part = append(part, &cairn.Line{SessionID: s.ID, No: l.No, Raw: l.Raw})
			}
			rounds, blocks := build(s, part, r.Seq)
			if len(rounds) != 1 || rounds[0].Seq != r.Seq {
				t.Errorf("%s round %d from lines %d and %d-%d: %s", path, r.Seq, r.FirstLine, r.FirstLine+2, r.LastLine, render(rounds, blocks))
			}
		}
	}
}
