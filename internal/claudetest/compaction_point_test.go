package claudetest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestCompactionPoint measures where the real client compacts by itself
// against [cairn.ClaudeCodeWindow]'s CompactAt, the 100 % of every figure
// cairn prints: with the client's default model, a reply 2,000 tokens past
// it is compacted before the next prompt, one 2,000 short of it is not.
// 2.1.197 run with -p does not compact by itself at all, and 2.1.330 not
// for a 200k model (claude-sonnet-4-5 from 169,000 to 1,100,000 tokens,
// claude-haiku-4-5 and claude-opus-4-1 at 169,000): nothing to measure.
func TestCompactionPoint(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			if !c.AtLeast(defaultOpus55) {
				t.Skipf("%s does not compact by itself in -p mode", c.Version)
			}
			w := cairn.ClaudeCodeWindow(cairn.WindowSignals{Model: "claude-opus-5-5"})
			for _, delta := range []int64{-2000, 2000} {
				compacted := compactsAfter(t, c.Path, cairnBin, w.CompactAt+delta)
				if want := delta > 0; compacted != want {
					t.Errorf("default model (window %d, compaction at %d): after a reply of %d tokens compacted=%v, want %v",
						w.Size, w.CompactAt, w.CompactAt+delta, compacted, want)
				}
			}
		})
	}
}

// compactsAfter runs a session whose second reply reports tokens, then a
// third prompt, and reports whether the client compacted by itself.
func compactsAfter(t *testing.T, bin, cairnBin string, tokens int64) bool {
	api := fakeapi.New()
	defer api.Close()
	api.SetSummary("SUMMARY of the session")
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")
	first := claudetest.Run(t, bin, home, proj, api.URL, "-p", "the first prompt")
	api.SetInputTokens(int(tokens))
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "the second prompt")
	api.SetInputTokens(100)
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "the third prompt")
	data, err := os.ReadFile(claudetestTranscript(t, home, first.SessionID))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(data), `"trigger":"auto"`)
}
