package claudetest_test

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestCompactionPointInteractive is [TestCompactionPoint] in a
// pseudo-terminal, as people use the client: a 200k model
// (claude-sonnet-4-5) is not compacted after a reply 1,000 tokens short
// of its window on either release (nor, measured with
// TestMeasureCompactionPTY, after replies of 169,000, 185,000, 199,000,
// 400,000 or 995,000), and 2.1.330's default model (1M) is compacted
// after a reply 2,000 tokens past cairn's interactive CompactAt (977,000:
// compacted after 977,000, not after 976,000, measured) and not 2,000
// short of it.
func TestCompactionPointInteractive(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			agent := envOf("AI_AGENT=claude-code_"+strings.ReplaceAll(c.Version, ".", "-")+"_harness", "CLAUDE_CODE_ENTRYPOINT=cli")
			sonnet := cairn.ClaudeCodeWindow(cairn.WindowSignals{Model: "claude-sonnet-4-5", Getenv: agent})
			if ptyCompactsAfter(t, c, cairnBin, "claude-sonnet-4-5", int(sonnet.Size)-1000) {
				t.Errorf("claude %s compacted claude-sonnet-4-5 after a reply of %d tokens: it is not reactive", c.Version, sonnet.Size-1000)
			}
			if !c.AtLeast(interactiveAutoCompact) {
				return
			}
			w := cairn.ClaudeCodeWindow(cairn.WindowSignals{Model: "claude-opus-5-5", Getenv: agent})
			for _, delta := range []int64{-2000, 2000} {
				if compacted, want := ptyCompactsAfter(t, c, cairnBin, "", int(w.CompactAt+delta)), delta > 0; compacted != want {
					t.Errorf("default model (window %d, compaction at %d): after a reply of %d tokens compacted=%v, want %v",
						w.Size, w.CompactAt, w.CompactAt+delta, compacted, want)
				}
			}
		})
	}
}

// TestMeasureCompactionPTY (CAIRN_MEASURE_COMPACTION=1) prints, for each
// client, model and reply size, whether the interactive client compacted
// by itself before the next prompt: what loop/window.go's per-release
// rule rests on.
func TestMeasureCompactionPTY(t *testing.T) {
	if os.Getenv("CAIRN_MEASURE_COMPACTION") == "" {
		t.Skip("set CAIRN_MEASURE_COMPACTION=1 to measure")
	}
	cairnBin := MustBuildCairn(t)
	models := strings.Fields(os.Getenv("CAIRN_MEASURE_MODELS"))
	if len(models) == 0 {
		models = []string{"", "claude-sonnet-4-5"}
	}
	var sizes []int
	for _, f := range strings.Fields(os.Getenv("CAIRN_MEASURE_TOKENS")) {
		n, _ := strconv.Atoi(f)
		sizes = append(sizes, n)
	}
	if len(sizes) == 0 {
		sizes = []int{165_000, 169_000}
	}
	for _, c := range claudetest.Clients(t) {
		if only := os.Getenv("CAIRN_MEASURE_CLIENT"); only != "" && only != c.Name {
			continue
		}
		for _, model := range models {
			for _, n := range sizes {
				t.Logf("claude %s, model %q, a reply of %d tokens: compacted=%v", c.Version, model, n, ptyCompactsAfter(t, c, cairnBin, model, n))
			}
		}
	}
}

// ptyCompactsAfter runs the client interactively (with model, "" for its
// default), has a reply report tokens, sends one more prompt and reports
// whether the client compacted by itself before sending it.
func ptyCompactsAfter(t *testing.T, c claudetest.Client, cairnBin, model string, tokens int) bool {
	t.Helper()
	api := fakeapi.New()
	defer api.Close()
	api.SetSummary("SUMMARY of the session")
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")
	claudetest.SeedHome(t, home, proj, c.Version)
	var args []string
	if model != "" {
		args = []string{"--model", model}
	}
	term := claudetest.StartTerm(t, nil, c.Path, home, proj, api.URL, args...)
	defer term.Close()
	api.SetInputTokens(tokens)
	ptyPrompt(t, term, api, "fill it up")
	api.SetInputTokens(100)
	before := len(api.Requests())
	ptyPrompt(t, term, api, "the next prompt")
	return slices.ContainsFunc(api.Requests()[before:], func(r fakeapi.Request) bool {
		return strings.Contains(string(r.Body), fakeapi.CompactMarker)
	})
}

// ptyPrompt types text once the client is idle and waits for the request
// that carries it and for the reply on the screen.
func ptyPrompt(t *testing.T, term *claudetest.Term, api *fakeapi.Server, text string) {
	t.Helper()
	const wait = 90 * time.Second
	term.Idle(2*time.Second, wait)
	before := len(api.Requests())
	term.Type(text)
	enter := time.Now().Add(10 * time.Second)
	for deadline := time.Now().Add(wait); !slices.ContainsFunc(api.Requests()[before:], func(r fakeapi.Request) bool { return strings.Contains(string(r.Body), text) }); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(enter) {
			// A line typed while the client was still starting stays in
			// its prompt: Enter again.
			term.Keys("\r")
			enter = time.Now().Add(10 * time.Second)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no request holds %q; the screen:\n%s", text, term.Screen())
		}
	}
	term.WaitScreen("the reply to "+text, func(string) bool {
		screen := term.Screen()
		i := strings.LastIndex(screen, "❯ "+text)
		return i >= 0 && strings.Contains(screen[i:], "● "+fakeapi.DefaultReply)
	}, wait)
}
