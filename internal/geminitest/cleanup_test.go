package geminitest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/geminitest"
	"github.com/cairn-dev/cairn/surgery"
)

// TestResumeSurvivesCleanup writes a revived session as cairn does, two
// minutes before the client resumes it (the export's clock set back, not
// slept), has the real client resume it and carry on, then start a new
// session, whose start-up cleans the session folder: cairn's file, with
// the work done after resuming, must still be there and resume again.
// 0.61 writes a metadata-only stub named after the resumed session's
// first eight characters when the minute has changed, and its cleanup
// deletes every file whose name ends with a stub's eight characters.
func TestResumeSurvivesCleanup(t *testing.T) {
	s := openSample(t)
	m, err := surgery.Revive(t.Context(), s.st, s.ids[geminitest.Newest], "", "", cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range geminitest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			api := fakeapi.NewGemini()
			defer api.Close()
			h := geminitest.NewHome(t, api.URL)
			then := time.Now().Add(-2 * time.Minute)
			x := &gemini.Exporter{SessionID: gemini.NewSessionID(), Project: h.Cwd, Summary: surgery.Summary(m), Now: then,
				Document: c.Name == "oldest", Blocks: blocksOf(m)}
			lines, err := x.Lines(m)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(gemini.ChatsDir(h.Gemini, h.Cwd), x.FileName(then))
			writeLines(t, path, lines)
			if err := os.Chtimes(path, then, then); err != nil {
				t.Fatal(err)
			}
			h.Run(t, c.Bin, "E2E-CONTINUED work after resuming.", "--resume", x.SessionID)
			h.Run(t, c.Bin, "E2E-NEXT a session of its own.")
			var holder string
			for _, f := range h.Sessions(t) {
				if b, _ := os.ReadFile(f); strings.Contains(string(b), "E2E-CONTINUED") {
					holder = f
				}
			}
			if holder == "" {
				t.Fatalf("the work done after resuming is gone from the session folder: %v", h.Sessions(t))
			}
			h.Run(t, c.Bin, "E2E-AGAIN resume once more.", "--resume", x.SessionID)
			if b, _ := os.ReadFile(holder); !strings.Contains(string(b), "E2E-AGAIN") {
				t.Errorf("resuming again did not carry on in %s: %v", holder, h.Sessions(t))
			}
		})
	}
}
