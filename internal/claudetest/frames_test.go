package claudetest_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestCompressFrames works in frame A with the real client (a detail is
// planted there), pops A with results, works in frame B, then collapses
// the finished frame with compress-frames and resumes the result: the
// request the client sends holds A's results and B's round verbatim, and
// nothing of the detail.
func TestCompressFrames(t *testing.T) {
	for name, bin := range claudetest.Versions(t) {
		t.Run(name, func(t *testing.T) { compressFrames(t, bin) })
	}
}

const (
	planted   = "PLANTED-DETAIL-4c1e"
	aResults  = "A-RESULTS-77b0"
	bVerbatim = "B-VERBATIM-5d2a"
)

func compressFrames(t *testing.T, bin string) {
	cairnBin := MustBuildCairn(t)
	api := fakeapi.New(
		fakeapi.Turn{Match: "work in frame A", Steps: [][]fakeapi.Block{{{Type: "text", Text: "Noted: the key is " + planted + "."}}}},
		fakeapi.Turn{Match: "work in frame B", Steps: [][]fakeapi.Block{{{Type: "text", Text: "In B: " + bVerbatim + "."}}}},
	)
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")
	mustCairn(t, cairnBin, proj, "push", "Frame A", "--root", "--id", "a", "--criteria", "the key is found")

	first := claudetest.Run(t, bin, home, proj, api.URL, "-p", "work in frame A")
	if first.IsError {
		t.Fatalf("run in A: %+v", first)
	}
	out := mustCairn(t, cairnBin, proj, "pop", "--results", aResults+": the key is known", "--compact", "key found")
	if !strings.Contains(out, "cairn compress-frames "+first.SessionID) {
		t.Fatalf("pop does not offer the collapse:\n%s", out)
	}
	mustCairn(t, cairnBin, proj, "push", "Frame B", "--root", "--id", "b", "--criteria", "B is done")
	if r := claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "work in frame B"); r.IsError {
		t.Fatalf("run in B: %+v", r)
	}

	// Without the collapse, the resumed session still carries the detail.
	var carried bool
	for _, r := range api.Requests() {
		carried = carried || strings.Contains(string(r.Body), "work in frame B") && strings.Contains(string(r.Body), planted)
	}
	if !carried {
		t.Fatal("the plain resume does not carry the planted detail: the test proves nothing")
	}

	dir := filepath.Join(home, ".claude", "projects", claudecode.ProjectDirName(proj))
	out = mustCairn(t, cairnBin, proj, "compress-frames", first.SessionID, "--out", dir)
	id := regexp.MustCompile(`claude --resume ([0-9a-f-]{36})`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("compress-frames printed no resume command:\n%s", out)
	}
	before := len(api.Requests())
	if r := claudetest.Run(t, bin, home, proj, api.URL, "--resume", id[1], "-p", "after the collapse"); r.IsError {
		t.Fatalf("resume: %+v", r)
	}
	var req []byte
	for _, r := range api.Requests()[before:] {
		if strings.Contains(r.Path, "/v1/messages") && strings.Contains(string(r.Body), "after the collapse") {
			req = r.Body
		}
	}
	if req == nil {
		t.Fatal("no request after the resume holds the new prompt")
	}
	body := string(req)
	if strings.Contains(body, planted) {
		t.Errorf("the detail planted in finished frame A is still in the request")
	}
	for _, want := range []string{aResults, `Frame a \"Frame A\" (completed)`, "work in frame B", bVerbatim} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %q", want)
		}
	}
}
