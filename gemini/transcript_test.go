package gemini_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/gemini"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// samples are the sessions the real clients wrote (internal/geminitest's
// TestMakeSamples): 0.61.0's JSONL and 0.30.0's .json document.
func samples(t testing.TB) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join("testdata", "*", "session-*"))
	if len(m) < 2 {
		t.Fatalf("samples: found %v, want one per supported release", m)
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

// build reads lines as an import does, from line from (1-based) with the
// builder of round fromSeq.
func build(s *cairn.Session, lines []*cairn.Line, fromSeq int) ([]*cairn.Round, []*cairn.Block) {
	b := gemini.Format{}.NewBuilder(s, fromSeq)
	for _, l := range lines {
		b.Add(l)
	}
	rounds, blocks, _ := b.Finish()
	return rounds, cairn.CollectBlocks(blocks)
}

func readSample(t *testing.T, path string) (*cairn.Session, []byte, []*cairn.Line) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raws := splitLines(data)
	if !gemini.IsSession(path, raws) {
		t.Fatalf("%s: not recognised as a Gemini CLI session", path)
	}
	s, err := gemini.Format{}.Identify(path, raws)
	if err != nil {
		t.Fatal(err)
	}
	var lines []*cairn.Line
	var off int64
	for i, r := range raws {
		lines = append(lines, &cairn.Line{SessionID: s.ID, No: i + 1, Offset: off, Raw: r})
		off += int64(len(r))
	}
	return s, data, lines
}

// TestSamples reads each era's sample: every line kept (their bytes are the
// file), two prompts and their tool calls, each call answered once, and
// the golden rendering of rounds and blocks.
func TestSamples(t *testing.T) {
	for _, path := range samples(t) {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			s, data, lines := readSample(t, path)
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
			if len(rounds) != 3 {
				t.Fatalf("%d rounds, want 3 (preamble and two prompts)", len(rounds))
			}
			want := [][]string{nil, {"run_shell_command", "read_file"}, {"replace", "write_file"}}
			for i, r := range rounds {
				if fmt.Sprint(r.Tools) != fmt.Sprint(want[i]) {
					t.Errorf("round %d tools %v, want %v", i, r.Tools, want[i])
				}
			}
			if rounds[1].UserPreview != "Please inspect the project." || rounds[2].UserPreview != "Now change the greeting." {
				t.Errorf("prompts %q, %q", rounds[1].UserPreview, rounds[2].UserPreview)
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
			if len(calls) != 4 {
				t.Errorf("%d tool calls, want 4", len(calls))
			}
			for id, n := range calls {
				if n != 1 || results[id] != 1 {
					t.Errorf("call %s: %d calls, %d results, want one each", id, n, results[id])
				}
			}
			golden(t, filepath.Join("testdata", filepath.Base(filepath.Dir(path))+".golden"), render(rounds, blocks))
		})
	}
}

// TestIncremental cuts each sample after every line: importing the first
// part, then the rest from the last round (its lines replayed, as inscribe
// does), builds what one read of the whole builds. A .json document is
// read again whole when it changes, so only JSONL is cut.
func TestIncremental(t *testing.T) {
	for _, path := range samples(t) {
		if !strings.HasSuffix(path, ".jsonl") {
			continue
		}
		s, _, lines := readSample(t, path)
		wantRounds, wantBlocks := build(s, clone(lines), 0)
		want := render(wantRounds, wantBlocks)
		for k := 1; k < len(lines); k++ {
			first := clone(lines[:k])
			rounds, _ := build(s, first, 0)
			last := rounds[len(rounds)-1]
			replay := clone(lines[last.FirstLine-1:])
			more, moreBlocks := build(s, replay, last.Seq)
			all := append(append([]*cairn.Round{}, rounds[:len(rounds)-1]...), more...)
			_, firstBlocks := build(s, clone(lines[:last.FirstLine-1]), 0)
			var keep []*cairn.Block
			for _, b := range firstBlocks {
				if b.RoundSeq < last.Seq {
					keep = append(keep, b)
				}
			}
			if got := render(all, append(keep, moreBlocks...)); got != want {
				t.Fatalf("cut after line %d: rounds differ from one read\n got: %s\nwant: %s", k, got, want)
			}
		}
	}
}

func clone(lines []*cairn.Line) []*cairn.Line {
	out := make([]*cairn.Line, len(lines))
	for i, l := range lines {
		c := *l
		out[i] = &c
	}
	return out
}

// TestUnknown keeps what it does not know: a record of an unknown shape is
// reported and kept raw, a message type to come is meta text, unknown
// fields do not change what is read.
func TestUnknown(t *testing.T) {
	s := &cairn.Session{ID: "s", Agent: cairn.AgentGemini}
	raws := []string{
		`{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00Z","kind":"main","futureField":{"a":1}}`,
		`{"id":"u1","timestamp":"2026-01-01T00:00:01Z","type":"user","content":[{"text":"hello there"}],"mood":"curious"}`,
		`{"somethingNew":true}`,
		`{"id":"x1","timestamp":"2026-01-01T00:00:02Z","type":"hologram","content":"a new kind of message"}`,
		`{"id":"g1","timestamp":"2026-01-01T00:00:03Z","type":"gemini","content":"hi","tokens":{"input":10,"output":2,"cached":4,"thoughts":1},"extra":[1,2]}`,
		`not json`,
		`{"id":"u2","timestamp":"2026-01-01T00:00:04Z","type":"user","content":[{"text":"<hook_context>cairn's context</hook_context>"},{"text":"the prompt after a hook's context"}]}`,
		`{"id":"u3","timestamp":"2026-01-01T00:00:05Z","type":"user","content":[{"text":"<hook_context>more context</hook_context>\n\nthe prompt in the context's text"}]}`,
	}
	var lines []*cairn.Line
	b := gemini.Format{}.NewBuilder(s, 0)
	var problems []string
	for i, r := range raws {
		l := &cairn.Line{SessionID: "s", No: i + 1, Raw: []byte(r + "\n")}
		lines = append(lines, l)
		if p := b.Add(l); p != "" {
			problems = append(problems, fmt.Sprintf("%d: %s", l.No, p))
		}
	}
	if want := `[3: unknown line type "" (kept raw) 6: invalid JSON (kept raw)]`; fmt.Sprint(problems) != want {
		t.Errorf("problems %v, want %s", problems, want)
	}
	if lines[2].Status != cairn.LineUnknownType || lines[5].Status != cairn.LineInvalidJSON || lines[3].Status != cairn.LineOK {
		t.Errorf("statuses %s, %s, %s", lines[2].Status, lines[3].Status, lines[5].Status)
	}
	rounds, seq, msgs := b.Finish()
	blocks := cairn.CollectBlocks(seq)
	got := render(rounds, blocks)
	for _, w := range []string{"user-text user: hello there", "meta-text system: a new kind of message", "assistant-text assistant: hi",
		"round 2 lines 7-7 tools [] prompt \"the prompt after a hook's context\"", "meta-text user: <hook_context>cairn's context</hook_context>",
		"round 3 lines 8-8 tools [] prompt \"the prompt in the context's text\"", "meta-text user: <hook_context>more context</hook_context>"} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in\n%s", w, got)
		}
	}
	if len(msgs) != 1 || msgs[0].Usage != (cairn.Usage{Input: 6, Output: 3, CacheRead: 4}) {
		t.Errorf("usage %+v", msgs)
	}
}

func render(rounds []*cairn.Round, blocks []*cairn.Block) string {
	var b strings.Builder
	for _, r := range rounds {
		fmt.Fprintf(&b, "round %d lines %d-%d tools %v prompt %q answer %q\n", r.Seq, r.FirstLine, r.LastLine, r.Tools, r.UserPreview, r.AgentPreview)
		for _, bl := range blocks {
			if bl.RoundSeq != r.Seq {
				continue
			}
			c := gemini.Preview(bl.Content)
			tool := ""
			if bl.ToolName != "" {
				tool = " " + bl.ToolName
			}
			fmt.Fprintf(&b, "  %d line %d %s %s%s: %s (error=%v step=%q)\n", bl.Index, bl.LineNo, bl.Kind, bl.Role, tool, c, bl.IsError, bl.MessageID)
		}
	}
	return b.String()
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./gemini -update writes it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test ./gemini -update rewrites it):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}
