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
// in print mode against [cairn.ClaudeCodeWindow]'s CompactAt, the 100 % of
// every figure cairn prints: with the client's default model, a reply
// 2,000 tokens past it is compacted before the next prompt, one 2,000
// short of it is not. A 200k model (claude-sonnet-4-5) is Reactive on
// every release: a reply 1,000 tokens short of the window, 99 %, is not
// compacted (nor are larger ones, up to 1,100,000: the client leaves
// them to the API's refusal). 2.1.197 run with -p compacts no model at a
// threshold: its default model's is not measured.
func TestCompactionPoint(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			agent := "AI_AGENT=claude-code_" + strings.ReplaceAll(c.Version, ".", "-") + "_harness"
			sonnet := cairn.ClaudeCodeWindow(cairn.WindowSignals{Model: "claude-sonnet-4-5", Getenv: envOf(agent)})
			if !sonnet.Reactive || sonnet.CompactAt != sonnet.Size {
				t.Errorf("claude %s, claude-sonnet-4-5: %+v, want the window, reactive", c.Version, sonnet)
			}
			if compactsAfter(t, c.Path, cairnBin, []string{"ANTHROPIC_MODEL=claude-sonnet-4-5"}, sonnet.Size-1000) {
				t.Errorf("claude %s compacted claude-sonnet-4-5 after a reply of %d tokens: it is not reactive", c.Version, sonnet.Size-1000)
			}
			if !c.AtLeast(defaultOpus55) {
				return
			}
			w := cairn.ClaudeCodeWindow(cairn.WindowSignals{Model: "claude-opus-5-5", Getenv: envOf(agent)})
			for _, delta := range []int64{-2000, 2000} {
				compacted := compactsAfter(t, c.Path, cairnBin, nil, w.CompactAt+delta)
				if want := delta > 0; compacted != want {
					t.Errorf("default model (window %d, compaction at %d): after a reply of %d tokens compacted=%v, want %v",
						w.Size, w.CompactAt, w.CompactAt+delta, compacted, want)
				}
			}
		})
	}
}

// envOf is a Getenv of NAME=value pairs.
func envOf(pairs ...string) func(string) string {
	return func(k string) string {
		for _, p := range pairs {
			if name, v, ok := strings.Cut(p, "="); ok && name == k {
				return v
			}
		}
		return ""
	}
}

// compactsAfter runs a session (with env) whose second reply reports
// tokens, then a third prompt, and reports whether the client compacted
// by itself.
func compactsAfter(t *testing.T, bin, cairnBin string, env []string, tokens int64) bool {
	api := fakeapi.New()
	defer api.Close()
	api.SetSummary("SUMMARY of the session")
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude")
	first := claudetest.RunEnv(t, env, bin, home, proj, api.URL, "-p", "the first prompt")
	api.SetInputTokens(int(tokens))
	claudetest.RunEnv(t, env, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "the second prompt")
	api.SetInputTokens(100)
	claudetest.RunEnv(t, env, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "the third prompt")
	data, err := os.ReadFile(claudetestTranscript(t, home, first.SessionID))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(data), `"trigger":"auto"`)
}

// TestCompactsWhenRefused holds the promise a reactive window's notes make
// ([loop.AtFull]): a 200k model's session (claude-sonnet-4-5) whose last
// reply filled the window has its next request refused as the API
// refuses one past the window ("prompt is too long"), and the client then
// compacts it and answers the prompt, in print mode, on every release.
func TestCompactsWhenRefused(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			api := fakeapi.New()
			defer api.Close()
			api.SetSummary("SUMMARY of the session")
			home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
			mustCairn(t, cairnBin, proj, "install", "claude")
			env := []string{"ANTHROPIC_MODEL=claude-sonnet-4-5"}
			first := claudetest.RunEnv(t, env, c.Path, home, proj, api.URL, "-p", "the first prompt")
			api.SetInputTokens(199_000)
			claudetest.RunEnv(t, env, c.Path, home, proj, api.URL, "--resume", first.SessionID, "-p", "the second prompt")
			api.SetInputTokens(100)
			api.SetRefuse(refuseAt(1))
			last := claudetest.RunEnv(t, env, c.Path, home, proj, api.URL, "--resume", first.SessionID, "-p", "the third prompt")
			data, err := os.ReadFile(claudetestTranscript(t, home, first.SessionID))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), `"compact_boundary"`) || last.IsError || last.Result != fakeapi.DefaultReply {
				t.Errorf("claude %s after a refusal: compacted=%v, result %+v", c.Version, strings.Contains(string(data), `"compact_boundary"`), last)
			}
		})
	}
}
