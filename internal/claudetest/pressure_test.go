package claudetest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/internal/claudetest"
	"cairn/internal/fakeapi"
)

// TestPressure runs the real client with a tiny configured window: after a
// reply whose usage fills 10 % of it, the next prompt's request carries
// the pressure note (percentage, advice, command), once.
func TestPressure(t *testing.T) {
	for name, bin := range claudetest.Versions(t) {
		t.Run(name, func(t *testing.T) { pressure(t, bin) })
	}
}

func pressure(t *testing.T, bin string) {
	cairnBin := MustBuildCairn(t)
	api := fakeapi.New()
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude", "--pressure", "5")
	// The stand-in API reports 100 input tokens a reply: 10 % of 1,000.
	f, err := os.OpenFile(filepath.Join(proj, ".cairn", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("context_window = 1000\n")
	f.Close()

	first := claudetest.Run(t, bin, home, proj, api.URL, "-p", "first prompt")
	if first.IsError {
		t.Fatalf("first: %+v", first)
	}
	if n := requestsWith(api.Requests(), "your context is"); n != 0 {
		t.Fatalf("a note before any reply: %d requests", n)
	}
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "second prompt")
	var note bool
	for _, r := range api.Requests() {
		b := string(r.Body)
		if strings.Contains(b, "second prompt") && strings.Contains(b, "your context is 10% full (100 of 1,000 tokens; past the 5% mark)") &&
			strings.Contains(b, "cairn advise recommends") && strings.Contains(b, "Command: cairn ") {
			note = true
		}
	}
	if !note {
		t.Fatal("the request after the crossing holds no pressure note")
	}
	before := len(api.Requests())
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "third prompt")
	for _, r := range api.Requests()[before:] {
		if strings.Contains(string(r.Body), "third prompt") && strings.Count(string(r.Body), "your context is 10% full") > 1 {
			t.Fatal("the note came again without a new crossing")
		}
	}
}
