package claudecode_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// TestResultsFromRounds drafts results from every sample and public
// transcript taken as one frame's rounds: each is marked as generated,
// within its cap, names only files the rounds wrote or edited, and a
// smaller cap still keeps the mark. The drafts of a tool-heavy public
// session and of the samples are pinned as goldens
// (go test ./claudecode -update).
func TestResultsFromRounds(t *testing.T) {
	goldens := map[string]bool{"tool_heavy.jsonl": true, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f03.jsonl": true}
	pinned := 0
	for _, path := range append(samples(t), shared(t)...) {
		name := filepath.Base(path)
		t.Run(filepath.Base(filepath.Dir(path))+"/"+name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, _, rounds, blocks, _ := build(t, path, data)
			byRound := map[int]*cairn.Round{}
			for _, r := range rounds {
				byRound[r.Seq] = r
			}
			written := map[string]bool{}
			for _, b := range blocks {
				byRound[b.RoundSeq].Blocks = append(byRound[b.RoundSeq].Blocks, b)
				if b.Kind == cairn.ToolUse && (b.ToolName == "Write" || b.ToolName == "Edit" || b.ToolName == "MultiEdit") {
					written[cairn.ToolArg("Read", b.Content)] = true
				}
			}
			for _, limit := range []int{cairn.MaxGeneratedResults, 400} {
				got, err := cairn.ResultsFromRounds(rounds, cairn.ResultsOptions{MaxChars: limit})
				if cairn.ErrorCode(err) == cairn.ENOTFOUND {
					return // a transcript with nothing done
				} else if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(got.Results, cairn.GeneratedMark) {
					t.Fatalf("not marked as generated: %q", got.Results)
				}
				if n := utf8.RuneCountInString(got.Results); n > limit {
					t.Fatalf("%d characters, cap %d", n, limit)
				}
				for _, a := range got.Artifacts {
					if !written[cairn.ToolArg("Read", `{"file_path":`+quoteJSON(a)+`}`)] {
						t.Fatalf("artifact %s was not written by the rounds", a)
					}
				}
				if limit == cairn.MaxGeneratedResults && goldens[name] {
					pinned++
					compare(t, filepath.Join("testdata", "golden", "results", name+".txt"), []byte(got.Results+"\n--- compacted\n"+got.ResultsCompacted+"\n"))
				}
			}
		})
	}
	if pinned == 0 {
		t.Log("no golden compared (shared transcripts missing?)")
	}
}

// TestResultsVerification checks the outcome of checking commands: the
// last run of a command is its outcome, a failure keeps its failing line,
// commands that check nothing are left out, and only writes that
// succeeded with content are files written.
func TestResultsVerification(t *testing.T) {
	call := func(id, cmd string) *cairn.Block {
		return &cairn.Block{Kind: cairn.ToolUse, Role: "assistant", ToolName: "Bash", ToolID: id, Content: `{"command":` + quoteJSON(cmd) + `}`}
	}
	result := func(id, out string, isErr bool) *cairn.Block {
		return &cairn.Block{Kind: cairn.ToolResult, Role: "user", ToolID: id, Content: out, IsError: isErr}
	}
	r := &cairn.Round{Seq: 1, Blocks: []*cairn.Block{
		call("1", "go test ./store/..."), result("1", "--- FAIL: TestPut (0.01s)\nFAIL\tcairn/store", true),
		call("2", "ls -la"), result("2", "total 0", false),
		call("3", "cd x && npm run build"), result("3", "ok", false),
		{Kind: cairn.ToolUse, Role: "assistant", ToolName: "Edit", ToolID: "4", Content: `{"file_path":"/w/store/put.go","old_string":"a","new_string":"b"}`},
		result("4", "The file has been updated.", false),
		{Kind: cairn.ToolUse, Role: "assistant", ToolName: "Write", ToolID: "7", Content: `{"file_path":"/w/store/empty.go"}`},
		result("7", "InputValidationError: The required parameter `content` is missing", true),
		{Kind: cairn.ToolUse, Role: "assistant", ToolName: "Edit", ToolID: "8", Content: `{"file_path":"/w/store/get.go","old_string":"x","new_string":"y"}`},
		result("8", "String to replace not found in file.", true),
		call("5", "go test ./store/..."), result("5", "ok  \tcairn/store\t0.3s", false),
		call("6", "go vet ./... | tee log"), result("6", "FAIL: vet found problems", false),
		{Kind: cairn.AssistantText, Role: "assistant", Content: "We went with a mutex rather than a channel. Tests pass now."},
	}}
	got, err := cairn.ResultsFromRounds([]*cairn.Round{r}, cairn.ResultsOptions{Root: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\n- `go test ./store/...` → ok\n",
		"\n- `cd x && npm run build` → ok\n",
		"\n- `go vet ./... | tee log` → failed: FAIL: vet found problems",
		"Files written or edited (1): store/put.go\n",
		"Conclusion: We went with a mutex rather than a channel. Tests pass now.",
		"Decisions:\n- We went with a mutex rather than a channel.",
	} {
		if !strings.Contains(got.Results, want) {
			t.Errorf("results lack %q:\n%s", want, got.Results)
		}
	}
	if strings.Contains(got.Results, "ls -la") || strings.Contains(got.Results, "TestPut") {
		t.Errorf("ls is not a check, and the failed first run is not the outcome:\n%s", got.Results)
	}
	if got.ResultsCompacted != "We went with a mutex rather than a channel." {
		t.Errorf("compacted %q", got.ResultsCompacted)
	}
	if _, err := cairn.ResultsFromRounds([]*cairn.Round{{Seq: 1}}, cairn.ResultsOptions{}); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("empty rounds: %v, want ENOTFOUND", err)
	}
}

func quoteJSON(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
