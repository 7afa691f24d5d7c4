package claudetest_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"cairn/internal/claudetest"
	"cairn/internal/fakeapi"
)

// TestOneMomentOneCommand (issue #42, 2d): the context crosses the
// pressure marks and the client compacts by itself on the same prompt
// (the stand-in API reports 995,000 input tokens of a 1,000,000 window).
// The pressure note and the line after the compaction are one moment:
// every request after it names one command, the one resume of the one
// revived session cairn prepared, never a second session or a `cairn
// revive` to run besides.
func TestOneMomentOneCommand(t *testing.T) {
	for name, bin := range claudetest.Versions(t) {
		t.Run(name, func(t *testing.T) { oneMomentOneCommand(t, name, bin) })
	}
}

func oneMomentOneCommand(t *testing.T, name, bin string) {
	cairnBin := MustBuildCairn(t)
	api := fakeapi.New()
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")

	first := claudetest.Run(t, bin, home, proj, api.URL, "-p", "the first prompt")
	api.SetInputTokens(995_000)
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "the second prompt")
	api.SetInputTokens(100)
	before := len(api.Requests())
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "the third prompt")

	data, err := os.ReadFile(claudetestTranscript(t, home, first.SessionID))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"trigger":"auto"`) {
		if name == "oldest" {
			t.Skip("this client did not compact by itself in -p mode: nothing to check")
		}
		t.Fatal("the client did not compact by itself")
	}
	resume := regexp.MustCompile(`claude --resume ([0-9a-f-]{36})`)
	revive := regexp.MustCompile(`Command: cairn revive `)
	ids := map[string]bool{}
	var told bool
	for _, r := range api.Requests()[before:] {
		body := string(r.Body)
		if !strings.Contains(r.Path, "/v1/messages") || !strings.Contains(body, "the third prompt") {
			continue
		}
		for _, m := range resume.FindAllStringSubmatch(body, -1) {
			ids[m[1]] = true
		}
		if revive.MatchString(body) {
			t.Errorf("a request tells the agent to run cairn revive besides the revived session:\n%s", excerpt(body, "Command: cairn revive"))
		}
		told = told || strings.Contains(body, "your context is")
	}
	if !told {
		t.Fatal("no request after the crossing holds the pressure note")
	}
	if len(ids) != 1 {
		t.Errorf("the requests after the compaction name %d sessions to resume, want 1: %v", len(ids), ids)
	}
}

// excerpt is body around the first s.
func excerpt(body, s string) string {
	i := strings.Index(body, s)
	if i < 0 {
		return ""
	}
	return body[max(0, i-600):min(len(body), i+400)]
}
