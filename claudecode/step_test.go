package claudecode_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestSteps checks, on every sample and public transcript, that steps tile
// each round after its prompt, that every tool call and its result fall in
// the same step, and that a step starts at each new assistant message.
func TestSteps(t *testing.T) {
	for _, path := range append(samples(t), shared(t)...) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, _, rounds, blocks, _ := build(t, path, data)
			byRound := map[int][]*cairn.Block{}
			for _, b := range blocks {
				byRound[b.RoundSeq] = append(byRound[b.RoundSeq], b)
			}
			total := 0
			for _, r := range rounds {
				steps := cairn.Steps(byRound[r.Seq], r.LastLine)
				total += len(steps)
				for i, s := range steps {
					if s.Seq != i+1 || s.RoundSeq != r.Seq {
						t.Fatalf("round %d step %d: numbered %d.%d", r.Seq, i+1, s.RoundSeq, s.Seq)
					}
					if s.FirstLine < r.FirstLine || s.LastLine > r.LastLine || s.FirstLine > s.LastLine {
						t.Fatalf("step %d.%d spans %d–%d outside round %d–%d", r.Seq, s.Seq, s.FirstLine, s.LastLine, r.FirstLine, r.LastLine)
					}
					if i > 0 && s.FirstLine != steps[i-1].LastLine+1 {
						t.Fatalf("step %d.%d starts at %d, previous ends at %d", r.Seq, s.Seq, s.FirstLine, steps[i-1].LastLine)
					}
					for _, b := range s.Blocks {
						if b.LineNo < s.FirstLine || b.LineNo > s.LastLine {
							t.Fatalf("step %d.%d: block at line %d outside %d–%d", r.Seq, s.Seq, b.LineNo, s.FirstLine, s.LastLine)
						}
					}
					if s.IndexLine() == "" {
						t.Fatal("empty index line")
					}
				}
				if len(steps) > 0 && steps[len(steps)-1].LastLine != r.LastLine {
					t.Fatalf("round %d: steps end at %d, round at %d", r.Seq, steps[len(steps)-1].LastLine, r.LastLine)
				}
				stepOf := map[string]int{}
				for _, s := range steps {
					for _, b := range s.Blocks {
						if b.Kind == cairn.ToolUse && !b.Sidechain {
							stepOf[b.ToolID] = s.Seq
						}
					}
				}
				for _, s := range steps {
					for _, b := range s.Blocks {
						if b.Kind == cairn.ToolResult && !b.Sidechain {
							if want, ok := stepOf[b.ToolID]; ok && want != s.Seq {
								t.Errorf("round %d: result of %s in step %d, its call in step %d", r.Seq, b.ToolID, s.Seq, want)
							}
						}
					}
				}
			}
			t.Logf("%d rounds, %d steps", len(rounds), total)
		})
	}
}

func TestToolArg(t *testing.T) {
	for _, c := range []struct{ tool, input, want string }{
		{"Read", `{"file_path":"/src/a.go","limit":20}`, "/src/a.go"},
		{"Read", `{"file_path":"/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter/transcripts/annotation.ex"}`, "…worktrees/spotter-gqc/lib/spotter/transcripts/annotation.ex"},
		{"Bash", `{"command":"go test ./...","description":"Run tests"}`, "go test ./..."},
		{"Grep", `{"pattern":"func main","path":"."}`, "."},
		{"TodoWrite", `{"todos":[{"content":"a"},{"content":"b"}]}`, "2 todos"},
		{"Bash", `not json`, ""},
		{"Task", `{"description":"Explore","prompt":"look around","subagent_type":"Explore"}`, "Explore"},
	} {
		if got := cairn.ToolArg(c.tool, c.input); got != c.want {
			t.Errorf("ToolArg(%s, %s) = %q, want %q", c.tool, c.input, got, c.want)
		}
	}
}
