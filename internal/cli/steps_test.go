package cli

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// long is the session the real client made with one prompt and 161 steps,
// auto-compacted inside its first round (line 356).
const long = "7a11c0de-0000-4000-8000-000000000150"

// TestBeforeCompaction pins what a kept round that spans the client's
// compaction keeps of what came before it: the client's summary (the
// default), that summary and an index line per step, or everything.
func TestBeforeCompaction(t *testing.T) {
	c := newCLI(t)
	c.run("import", "../../testdata/long/"+long+".jsonl")
	c.run("tag", "early", long, "1")
	const (
		summary   = "its own summary stands for what came before"
		indexLine = "- 1.3 Edit `/tmp/cairn-long/proj/inventory/part_01.go`"
		firstCall = "**Tool call:** `Write`\n\nfile_path: /tmp/cairn-long/proj/inventory/part_01.go\n\ncontent:\n"
	)
	out := map[string]string{}
	for _, before := range []string{"", "summary", "index", "full"} {
		args := []string{"extract-engagement", long, "early", "--format", "markdown", "--budget", "0"}
		if before != "" {
			args = append(args, "--before-compaction", before)
		}
		out[before] = c.run(args...)
	}
	if out[""] != out["summary"] {
		t.Errorf("the default is not --before-compaction summary")
	}
	for _, c := range []struct {
		before string
		has    []string
		hasNot []string
	}{
		{"summary", []string{summary}, []string{indexLine, firstCall}},
		{"index", []string{summary, indexLine}, []string{firstCall}},
		{"full", []string{firstCall, "Conversation compacted (auto, 24229 tokens)"}, []string{summary, indexLine}},
	} {
		for _, s := range c.has {
			if !strings.Contains(out[c.before], s) {
				t.Errorf("--before-compaction %s: no %q", c.before, s)
			}
		}
		for _, s := range c.hasNot {
			if strings.Contains(out[c.before], s) {
				t.Errorf("--before-compaction %s: %q is there", c.before, s)
			}
		}
	}
	if !(len(out["summary"]) < len(out["index"]) && len(out["index"]) < len(out["full"])) {
		t.Errorf("sizes summary %d, index %d, full %d: want each larger than the one before", len(out["summary"]), len(out["index"]), len(out["full"]))
	}
	if _, err := c.try("extract-engagement", long, "early", "--before-compaction", "some"); err == nil || !strings.Contains(err.Error(), "full, index or summary") {
		t.Errorf("--before-compaction some: err=%v", err)
	}
}

var stepLineRE = regexp.MustCompile("(?m)^- (1\\.(\\d+)) (\\w+) `([^`]+)`")

// TestInjectStep follows the step index a budget writes: every line names
// a step that `cairn inject SESSION ROUND.STEP` prints alone, with the tool
// call and argument the line shows.
func TestInjectStep(t *testing.T) {
	c := newCLI(t)
	c.run("import", "../../testdata/long/"+long+".jsonl")
	revived := c.run("revive", long, "--format", "markdown", "--budget", "60000")
	lines := stepLineRE.FindAllStringSubmatch(revived, -1)
	if len(lines) < 10 {
		t.Fatalf("%d step index lines in revive --budget 60000:\n%s", len(lines), revived)
	}
	round := c.run("inject", long, "1", "--format", "markdown")
	for _, l := range []([]string){lines[0], lines[len(lines)/2], lines[len(lines)-1]} {
		// The argument as far as the markdown shows it verbatim (JSON
		// escapes quotes) and the line did not cut it.
		arg, _, _ := strings.Cut(strings.TrimSuffix(l[4], "…"), `"`)
		ref, step, tool := l[1], l[2], l[3]
		got := c.run("inject", long, ref, "--format", "markdown")
		if !strings.Contains(got, "# inject · round 1 step "+step) || !strings.Contains(got, "**Tool call:** `"+tool+"`") || !strings.Contains(got, arg) {
			t.Errorf("inject %s does not print step %s (%s %s):\n%s", ref, step, tool, arg, got)
		}
		if n := strings.Count(got, "**Tool call:**"); n != 1 {
			t.Errorf("inject %s prints %d tool calls, want the step's one", ref, n)
		}
		if size, whole := sizeOf(t, got), sizeOf(t, round); size > whole-10_000 {
			t.Errorf("inject %s: ~%d tokens, the whole round ~%d: the size is not the step's", ref, size, whole)
		}
	}
	if _, err := c.try("inject", long, "1.999"); err == nil || !strings.Contains(err.Error(), "has 161 steps, not a step 999") {
		t.Errorf("inject 1.999: err=%v", err)
	}
}

// sizeOf reads the size a markdown output states.
func sizeOf(t *testing.T, md string) int {
	t.Helper()
	m := regexp.MustCompile(`size: ~(\d+) tokens`).FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("no size in:\n%.400s", md)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
