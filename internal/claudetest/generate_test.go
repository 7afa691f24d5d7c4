package claudetest_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

var (
	generate = flag.Bool("generate", false, "regenerate testdata/long with the real client")
	longOnly = flag.String("long", "", "with -generate: the sessions to make, by the last digits of their ids (150 to 159); all when empty")
)

// Where the long sessions are made: fixed paths, recorded in the files.
const (
	longProject  = "/tmp/cairn-long/proj"
	longHome     = "/tmp/cairn-long/home"
	longOut      = "../../testdata/long"
	longAuto     = "7a11c0de-0000-4000-8000-000000000150" // one prompt, 160 tool calls, an auto-compaction
	longManual   = "7a11c0de-0000-4000-8000-000000000151" // 120 tool calls over two prompts, /compact between
	longBefore   = "7a11c0de-0000-4000-8000-000000000152" // a whole round, then one auto-compacted in its middle
	longContinue = "7a11c0de-0000-4000-8000-000000000153" // /compact at a round's end, then "continue"
	longSeveral  = "7a11c0de-0000-4000-8000-000000000154" // three auto-compactions over three rounds
	longWide     = "7a11c0de-0000-4000-8000-000000000155" // a 1M window, past 200k tokens, no compaction
)

// wantLong reports whether -long asks for the session id.
func wantLong(id string) bool {
	if *longOnly == "" {
		return true
	}
	for _, n := range strings.Split(*longOnly, ",") {
		if n = strings.TrimSpace(n); n != "" && strings.HasSuffix(id, n) {
			return true
		}
	}
	return false
}

// longSummary is what the fake API answers to a compaction request. It must
// not contain a turn's match text, or the run would start over.
const longSummary = `<analysis>
The user asked for a package built part by part, working alone; parts were written, read back, edited and checked with grep and wc. No errors so far.
</analysis>

<summary>
1. Primary Request and Intent: build the package's parts one by one without asking, each part a small Go file with a Value function, edited to return its own number.
2. Key Technical Concepts: Go files, Edit after Read, grep -c to count functions.
3. Files and Code Sections: inventory/part_NN.go and notes/note_NN.md, one per step of four (write, read, edit, check).
4. Errors and fixes: none.
5. Pending Tasks: the remaining parts.
6. Current Work: the next part in order.
7. Optional Next Step: continue with the next part.
</summary>`

// TestGenerateLong regenerates the long sessions of testdata/long
// with the real client driven offline by the fake API:
//
//	go test ./internal/claudetest -run TestGenerateLong -generate -v
//
// Without -generate it does nothing.
func TestGenerateLong(t *testing.T) {
	if !*generate {
		t.Skip("run with -generate to regenerate testdata/long")
	}
	bin := claudetest.Binary(t)
	for _, dir := range []string{longProject, longHome} {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	flags := []string{"--allowedTools", "Bash Read Write Edit", "--tools", "Bash,Read,Write,Edit"}
	var ids []string
	if wantLong(longAuto) || wantLong(longManual) {
		ids = generateFirst(t, bin, flags)
	}
	ids = append(ids, generateShapes(t, bin)...)
	ids = append(ids, generateMore(t, bin)...)
	copyLong(t, ids)
	forkHead(t)
	out, _ := exec.Command(bin, "--version").Output()
	t.Logf("client %s", strings.TrimSpace(string(out)))
}

// generateFirst makes sessions 150 and 151 as they were first made: their
// files are kept byte for byte, so this code does not change.
func generateFirst(t *testing.T, bin string, flags []string) []string {

	// One prompt, 160 tool calls; half way the fake reports a context near
	// full (CAIRN_LONG_FULL_AT, the request of the run that does), and the
	// client compacts on its own, as in the spotter sessions.
	api := fakeapi.New(
		fakeapi.Turn{Match: "inventory module on your own", Steps: partSteps("inventory", "part", 40, "go")},
		fakeapi.Turn{Match: "What is left to do", Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": "ls inventory | wc -l && grep -l 'return 0' inventory/*.go | wc -l", "description": "Count parts and unedited ones"}}},
			{{Type: "text", Text: "Nothing is left: the 40 parts exist and every one returns its own number (no `return 0` remains)."}},
		}},
	)
	api.SetSummary(longSummary)
	calls, fullAt := 0, 90
	fmt.Sscan(envOr("CAIRN_LONG_FULL_AT", "90"), &fullAt)
	api.SetUsage(func(n int) int { return n / fakeapi.BytesPerToken })
	api.SetRefuse(func(n int) string {
		calls++
		if calls == fullAt {
			return "prompt is too long: 203418 tokens > 200000 maximum"
		}
		return ""
	})
	var auto []string
	run := func(env []string, args ...string) {
		t.Helper()
		res := claudetest.RunEnv(t, env, bin, longHome, longProject, api.URL, append(args, flags...)...)
		if res.IsError {
			t.Fatalf("claude %v: %+v", args, res)
		}
	}
	run(auto, "--session-id", longAuto, "-p", "Build the inventory module on your own: forty parts, inventory/part_01.go to part_40.go, each written, read back, edited to return its number and checked. Do not stop to ask.")
	run(auto, "--resume", longAuto, "-p", "What is left to do? Check the tree.")
	api.Close()
	ids := []string{longAuto}
	if os.Getenv("CAIRN_LONG_ONLY_AUTO") == "" {
		ids = append(ids, longManual)

		// Two prompts of 60 tool calls with a /compact between.
		api = fakeapi.New(
			fakeapi.Turn{Match: "pricing notes", Steps: partSteps("notes", "note", 15, "md")},
			fakeapi.Turn{Match: "reports from the notes", Steps: partSteps("reports", "report", 15, "md")},
		)
		api.SetSummary(longSummary)
		api.SetUsage(func(n int) int { return n / fakeapi.BytesPerToken })
		run(nil, "--session-id", longManual, "-p", "Write the pricing notes: fifteen of them, notes/note_01.md to note_15.md, each written, read back, edited and checked.")
		run(nil, "--resume", longManual, "-p", "/compact")
		run(nil, "--resume", longManual, "-p", "Now write the reports from the notes: reports/report_01.md to report_15.md, the same way.")
		api.Close()
	}
	return ids
}

// longProjects are the projects the sessions were made in, by id.
var longProjects = map[string]string{
	longAuto: longProject, longManual: longProject,
	longBefore: ledgerRoot, longContinue: meteoRoot, longSeveral: catalogRoot, longWide: tracerRoot,
	longEndCompact: notesRoot, longOnePrompt: sweepRoot, longForty: fortyRoot, longFork: forkedRoot,
}

// longCompactions is how many compactions each session must hold.
var longCompactions = map[string]int{longAuto: 1, longManual: 1, longBefore: 1, longContinue: 1, longSeveral: 3, longWide: 0,
	longEndCompact: 1, longOnePrompt: 1, longForty: 0, longFork: 1}

// copyLong copies the sessions into testdata/long and logs their shape.
func copyLong(t *testing.T, ids []string) {
	for _, id := range ids {
		src := filepath.Join(claudecode.ProjectsDir(longHome), claudecode.ProjectDirName(longProjects[id]))
		data, err := os.ReadFile(filepath.Join(src, id+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(longOut, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(longOut, id+".jsonl"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		uses, boundaries := 0, []string{}
		for _, line := range claudecode.SplitLines(data) {
			uses += bytes.Count(line, []byte(`"type":"tool_use"`))
			if bytes.Contains(line, []byte(`"subtype":"compact_boundary"`)) {
				var l struct {
					CompactMetadata json.RawMessage `json:"compactMetadata"`
				}
				_ = json.Unmarshal(line, &l)
				boundaries = append(boundaries, string(l.CompactMetadata))
			}
		}
		t.Logf("%s: %d bytes, %d lines, %d tool calls, compactions %v", id, len(data), len(claudecode.SplitLines(data)), uses, boundaries)
		if len(boundaries) != longCompactions[id] {
			t.Errorf("%s: %d compactions, want %d", id, len(boundaries), longCompactions[id])
		}
	}
}

// partSteps scripts an autonomous run over n files dir/prefix_NN.ext: for
// each, Write it, Read it back, Edit it and check it with Bash (four tool
// calls), with thinking every fifth step and a word of text every seventh;
// then a closing answer.
func partSteps(dir, prefix string, n int, ext string) [][]fakeapi.Block {
	var steps [][]fakeapi.Block
	add := func(blocks ...fakeapi.Block) {
		k := len(steps)
		if k%5 == 4 {
			blocks = append([]fakeapi.Block{{Type: "thinking", Thinking: fmt.Sprintf("Step %d of the run: keep the order write, read, edit, check; nothing to ask the user.", k+1)}}, blocks...)
		}
		if k%7 == 6 {
			blocks = append([]fakeapi.Block{{Type: "text", Text: fmt.Sprintf("Carrying on with step %d.", k+1)}}, blocks...)
		}
		steps = append(steps, blocks)
	}
	for i := 1; i <= n; i++ {
		rel := fmt.Sprintf("%s/%s_%02d.%s", dir, prefix, i, ext)
		path := longProject + "/" + rel
		var content string
		if ext == "go" {
			content = fmt.Sprintf("package %s\n\n// Part%02d is part %d of the %s.\ntype Part%02d struct {\n\tName  string\n\tCount int\n}\n\n// Value returns the part's number.\nfunc (p Part%02d) Value() int {\n\treturn 0\n}\n\n// Label names the part.\nfunc (p Part%02d) Label() string {\n\treturn \"%s %02d: \" + p.Name\n}\n",
				dir, i, i, dir, i, i, i, prefix, i)
		} else {
			content = fmt.Sprintf("# %s %02d\n\nNumber: 0\n\nWhat it covers: the %s of item %d, with prices, stock levels and the reorder threshold.\nEach line below is one fact the next step reads back.\n\n- price: %d.%02d\n- stock: %d\n- reorder at: %d\n", strings.ToUpper(prefix[:1])+prefix[1:], i, prefix, i, 10+i, i*7%100, 100-i, 20+i%5)
		}
		old, new := "return 0", fmt.Sprintf("return %d", i)
		if ext != "go" {
			old, new = "Number: 0", fmt.Sprintf("Number: %d", i)
		}
		add(fakeapi.Block{Type: "tool_use", Name: "Write", Input: map[string]any{"file_path": path, "content": content}})
		add(fakeapi.Block{Type: "tool_use", Name: "Read", Input: map[string]any{"file_path": path}})
		add(fakeapi.Block{Type: "tool_use", Name: "Edit", Input: map[string]any{"file_path": path, "old_string": old, "new_string": new}})
		add(fakeapi.Block{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": fmt.Sprintf("grep -n %q %s && wc -c %s", new, rel, rel), "description": "Check the edit"}})
	}
	steps = append(steps, []fakeapi.Block{{Type: "text", Text: fmt.Sprintf("Done: %d files under %s/, each written, read back, edited (%s → the file's number) and checked with grep.", n, dir, "`0`")}})
	return steps
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
