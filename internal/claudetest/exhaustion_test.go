package claudetest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/sqlite"
)

// TestExhaustion scripts an agent whose context has run out: it writes a
// chapter, then sends three Write calls without content (the client
// rejects each before any hook runs), then reads a file. The PostToolUse
// hook after the read notices the run, restarts the mission's phase from
// its boundary as a recovery listing the chapter, writes the core and
// index to .cairn/context/ (mission.json records the recovery phase), and its one line is in the next request the
// client sends. A second tool call after it does not repeat the line.
func TestExhaustion(t *testing.T) {
	bin := claudetest.Binary(t)
	cairnBin := MustBuildCairn(t)
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	chapter := filepath.Join(proj, "work_products", "chapter_1.html")
	empty := []fakeapi.Block{{Type: "tool_use", Name: "Write", Input: map[string]any{"file_path": filepath.Join(proj, "work_products", "chapter_2.html")}}}
	api := fakeapi.New(fakeapi.Turn{Match: "write the report", Steps: [][]fakeapi.Block{
		{{Type: "tool_use", Name: "Write", Input: map[string]any{"file_path": chapter, "content": "<h1>Chapter 1</h1>\n"}}},
		empty, empty, empty,
		{{Type: "tool_use", Name: "Read", Input: map[string]any{"file_path": chapter}}},
		{{Type: "tool_use", Name: "Read", Input: map[string]any{"file_path": chapter}}},
		{{Type: "text", Text: "Stopping."}},
	}})
	defer api.Close()

	mustCairn(t, cairnBin, proj, "install", "claude")
	mustCairn(t, cairnBin, proj, "mission", "set", "Create a 100-page AI regulation report, EU+US focus")
	mustCairn(t, cairnBin, proj, "phase", "next", "SYNTHESIS", "--task", "Write the report from the research files")

	r := claudetest.Run(t, bin, home, proj, api.URL, "-p", "write the report", "--allowedTools", "Write,Read")
	if r.IsError {
		t.Fatalf("run: %+v", r)
	}
	const said = "3 Write/Edit calls in a row carried no content, so your context is exhausted"
	if n := requestsWith(api.Requests(), said); n == 0 {
		paths, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
		for _, p := range paths {
			d, _ := os.ReadFile(p)
			for _, l := range strings.Split(string(d), "\n") {
				if strings.Contains(l, "hook") || strings.Contains(l, "tool_result") {
					t.Log(l[:min(len(l), 700)])
				}
			}
		}
		t.Fatalf("no request tells the agent of the exhaustion (%d requests)", len(api.Requests()))
	}
	// The line reaches the agent once: the requests after it carry it as
	// history, not again as new context.
	var lines int
	for _, req := range api.Requests() {
		lines = max(lines, strings.Count(string(req.Body), said))
	}
	if lines != 1 {
		t.Errorf("the line appears %d times in the last request, want 1", lines)
	}

	db := sqlite.NewDB(filepath.Join(proj, ".cairn", "cairn.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mis, err := sqlite.NewMissionStore(db).FindMission(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p := mis.Phase; p == nil || p.Reason != "recovery" || p.Name != "SYNTHESIS" || p.Seq != 2 ||
		len(p.Outputs) != 1 || p.Outputs[0] != "work_products/chapter_1.html" {
		t.Fatalf("phase after the exhaustion: %+v", mis.Phase)
	}
	// mission.json, the file the next agent and people read, says so too.
	if data, err := os.ReadFile(filepath.Join(proj, "mission.json")); err != nil || !strings.Contains(string(data), `"reason": "recovery"`) {
		t.Errorf("mission.json does not record the recovery: %v\n%s", err, data)
	}
	core, err := os.ReadFile(filepath.Join(proj, ".cairn", "context", r.SessionID+"-recovery.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"AI regulation report", "SYNTHESIS", "work_products/chapter_1.html"} {
		if !strings.Contains(string(core), want) {
			t.Errorf("the recovery context lacks %q:\n%s", want, core)
		}
	}
}
