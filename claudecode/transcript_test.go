package claudecode_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sharedTranscripts holds public transcripts of older client versions,
// read in place and never copied into the repository.
const sharedTranscripts = "../../shared/testdata/transcripts"

// samples returns the project's sample transcripts, relative to
// ../testdata/claudecode.
func samples(tb testing.TB) []string {
	tb.Helper()
	return jsonlFiles(tb, "../testdata/claudecode")
}

func jsonlFiles(tb testing.TB, root string) []string {
	tb.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			out = append(out, path)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func shared(tb testing.TB) []string {
	tb.Helper()
	if _, err := os.Stat(sharedTranscripts); err != nil {
		tb.Logf("SKIPPING shared transcripts: %s not found (it holds public transcripts of older clients)", sharedTranscripts)
		return nil
	}
	return jsonlFiles(tb, sharedTranscripts)
}

// build parses a whole file in one pass.
func build(tb testing.TB, path string, data []byte) (*cairn.Session, []*cairn.Line, []*cairn.Round, []*cairn.Block, []*cairn.MessageUsage) {
	tb.Helper()
	raws := claudecode.SplitLines(data)
	s, err := claudecode.Format{}.Identify(path, raws)
	if err != nil {
		tb.Fatal(err)
	}
	b := claudecode.Format{}.NewBuilder(s, 0)
	var lines []*cairn.Line
	var off int64
	for i, raw := range raws {
		l := &cairn.Line{SessionID: s.ID, No: i + 1, Offset: off, Raw: raw}
		b.Add(l)
		lines = append(lines, l)
		off += int64(len(raw))
	}
	rounds, blocks, msgs := b.Finish()
	return s, lines, rounds, cairn.CollectBlocks(blocks), msgs
}

// golden is what a golden file pins of a parse: every round and block,
// with long content cut to a head and a length.
type golden struct {
	Session struct {
		ID, Lineage, Parent, AgentID, Project, Title, Version string
	}
	Lines    map[string]int // by status
	Rounds   []goldenRound
	Messages int
	Usage    cairn.Usage
}

type goldenRound struct {
	Seq                    int
	Started, Ended         string
	FirstLine, LastLine    int
	UserPreview, AgentPrev string
	Tools                  []string `json:",omitempty"`
	Blocks                 []string
}

func goldenOf(s *cairn.Session, lines []*cairn.Line, rounds []*cairn.Round, blocks []*cairn.Block, msgs []*cairn.MessageUsage) golden {
	var g golden
	g.Session.ID, g.Session.Lineage, g.Session.Parent, g.Session.AgentID = s.ID, s.Lineage, s.Parent, s.AgentID
	g.Session.Project, g.Session.Title, g.Session.Version = s.Project, s.Title, s.Version
	g.Lines = map[string]int{}
	for _, l := range lines {
		g.Lines[string(l.Status)]++
	}
	bySeq := map[int][]string{}
	for _, b := range blocks {
		head := strings.Join(strings.Fields(b.Content), " ")
		if r := []rune(head); len(r) > 60 {
			head = string(r[:60]) + "…"
		}
		desc := b.Role + " " + string(b.Kind)
		if b.ToolName != "" {
			desc += " " + b.ToolName
		}
		if b.AgentID != "" {
			desc += " agent=" + b.AgentID
		}
		if b.IsError {
			desc += " error"
		}
		if b.Sidechain {
			desc += " sidechain"
		}
		bySeq[b.RoundSeq] = append(bySeq[b.RoundSeq], desc+" @"+itoa(b.LineNo)+" ["+itoa(len(b.Content))+"] "+head)
	}
	for _, r := range rounds {
		g.Rounds = append(g.Rounds, goldenRound{Seq: r.Seq, Started: r.StartedAt.Format("2006-01-02T15:04:05.000Z"),
			Ended: r.EndedAt.Format("2006-01-02T15:04:05.000Z"), FirstLine: r.FirstLine, LastLine: r.LastLine,
			UserPreview: r.UserPreview, AgentPrev: r.AgentPreview, Tools: r.Tools, Blocks: bySeq[r.Seq]})
		g.Usage = g.Usage.Add(r.Usage)
	}
	g.Messages = len(msgs)
	return g
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestGolden pins the rounds and blocks parsed from each sample
// transcript. Refresh with: go test ./claudecode -update
func TestGolden(t *testing.T) {
	files := samples(t)
	if len(files) == 0 {
		t.Fatal("no sample transcripts under ../testdata/claudecode")
	}
	for _, path := range files {
		rel, _ := filepath.Rel("../testdata/claudecode", path)
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(goldenOf(build(t, path, data)), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			compare(t, filepath.Join("testdata", "golden", rel+".golden.json"), append(got, '\n'))
		})
	}
}

// compare checks got against the golden file at path, or rewrites it.
func compare(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Fatalf("%s differs (-want +got):\n%s", path, diff)
	}
}

// TestInvariants checks, on every transcript we have, what must hold of
// any parse: lines concatenate to the file, every line has a known status
// and a round, rounds are numbered without gaps and cover every line once,
// tool results follow their calls, and a session's first round starts at
// a user line.
func TestInvariants(t *testing.T) {
	for _, path := range append(samples(t), shared(t)...) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, lines, rounds, blocks, _ := build(t, path, data)
			var buf bytes.Buffer
			for _, l := range lines {
				buf.Write(l.Raw)
				if l.Status != cairn.LineOK {
					t.Errorf("line %d: status %s", l.No, l.Status)
				}
			}
			if !bytes.Equal(buf.Bytes(), data) {
				t.Fatal("lines do not concatenate to the file")
			}
			next := 1
			for i, r := range rounds {
				if r.Seq != i && !(i == 0 && r.Seq == 1) && r.Seq != rounds[0].Seq+i {
					t.Fatalf("round %d has seq %d", i, r.Seq)
				}
				if r.FirstLine != next {
					t.Fatalf("round %d starts at line %d, want %d", r.Seq, r.FirstLine, next)
				}
				next = r.LastLine + 1
			}
			if next != len(lines)+1 {
				t.Fatalf("rounds end at line %d of %d", next-1, len(lines))
			}
			for _, l := range lines {
				r := rounds[0]
				for _, rr := range rounds {
					if rr.FirstLine <= l.No && l.No <= rr.LastLine {
						r = rr
					}
				}
				if l.RoundSeq != r.Seq {
					t.Fatalf("line %d: round %d, want %d", l.No, l.RoundSeq, r.Seq)
				}
			}
			calls := map[string]bool{}
			for _, b := range blocks {
				switch b.Kind {
				case cairn.ToolUse:
					calls[b.ToolID] = true
				case cairn.ToolResult:
					if !calls[b.ToolID] && !strings.Contains(path, "acompact") {
						t.Errorf("line %d: result for unknown tool call %s", b.LineNo, b.ToolID)
					}
				}
			}
			if s.ID == "" || s.Project == "" {
				t.Errorf("session identity incomplete: %+v", s)
			}
		})
	}
}
