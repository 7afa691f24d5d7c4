package cairn_test

import (
	"testing"

	"github.com/cairn-dev/cairn"
)

func TestClaudeCodeWindow(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		name            string
		s               cairn.WindowSignals
		size, compactAt int64
	}{
		{"a 200k model: reactive", cairn.WindowSignals{Model: "claude-sonnet-4-5"}, 200_000, 200_000},
		{"1m marker", cairn.WindowSignals{Model: "claude-sonnet-4-5[1m]"}, 1_000_000, 967_000},
		{"1m chosen in the env", cairn.WindowSignals{Model: "claude-sonnet-4-5", Getenv: env("ANTHROPIC_MODEL", "claude-sonnet-4-5[1m]")}, 1_000_000, 967_000},
		{"another model chosen in the env", cairn.WindowSignals{Model: "claude-haiku-4-5", Getenv: env("ANTHROPIC_MODEL", "claude-sonnet-4-5[1m]")}, 200_000, 200_000},
		{"opus 5 by default", cairn.WindowSignals{Model: "claude-opus-5-5"}, 1_000_000, 967_000},
		{"opus 4 is 200k", cairn.WindowSignals{Model: "claude-opus-4-1"}, 200_000, 200_000},
		{"status line", cairn.WindowSignals{Model: "claude-opus-5-5", Reported: 200_000}, 200_000, 200_000},
		{"status line 1m", cairn.WindowSignals{Model: "claude-opus-5-5", Reported: 1_000_000}, 1_000_000, 967_000},
		{"tokens past 200k", cairn.WindowSignals{Model: "x", Tokens: 250_000}, 1_000_000, 1_000_000},
		{"tokens past the reported window", cairn.WindowSignals{Model: "claude-sonnet-4-5", Reported: 200_000, Tokens: 230_000}, 1_000_000, 1_000_000},
		{"tokens past the default window", cairn.WindowSignals{Model: "claude-sonnet-4-5", Getenv: env("CLAUDE_CODE_DISABLE_1M_CONTEXT", "1"), Tokens: 230_000}, 1_000_000, 1_000_000},
		{"tokens past 1m", cairn.WindowSignals{Model: "claude-opus-5-5", Tokens: 1_200_000}, 1_000_000, 967_000},
		{"tokens past the reported 1m", cairn.WindowSignals{Model: "claude-opus-5-5", Reported: 1_000_000, Tokens: 1_034_000}, 1_000_000, 967_000},
		{"tokens past 1m on a 200k model", cairn.WindowSignals{Model: "claude-sonnet-4-5", Reported: 200_000, Tokens: 1_034_000}, 1_000_000, 1_000_000},
		{"tokens inside the reported window", cairn.WindowSignals{Model: "claude-sonnet-4-5", Reported: 200_000, Tokens: 190_000}, 200_000, 200_000},
		{"tokens past the configured window", cairn.WindowSignals{Configured: 100_000, Tokens: 230_000}, 100_000, 100_000},
		{"config", cairn.WindowSignals{Configured: 1000, Model: "claude-opus-5-5"}, 1000, 1000},
		{"env window", cairn.WindowSignals{Model: "claude-opus-5-5", Getenv: env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "300k")}, 1_000_000, 267_000},
		{"env window bare thousands", cairn.WindowSignals{Model: "claude-opus-5-5", Getenv: env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "400")}, 1_000_000, 367_000},
		{"env window minimum", cairn.WindowSignals{Model: "claude-opus-5-5", Getenv: env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "5000")}, 1_000_000, 67_000},
		{"pct override", cairn.WindowSignals{Model: "claude-opus-5-5", Getenv: env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")}, 1_000_000, 490_000},
		{"env window on a 200k model", cairn.WindowSignals{Model: "claude-sonnet-4-5", Getenv: env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "150k")}, 200_000, 117_000},
		{"1m on 2.1.330", cairn.WindowSignals{Model: "claude-opus-5-5", Getenv: env("AI_AGENT", "claude-code_2-1-330_harness")}, 1_000_000, 967_000},
		{"1m in print mode", cairn.WindowSignals{Model: "claude-opus-5-5", Getenv: env("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")}, 1_000_000, 967_000},
		{"1m interactively", cairn.WindowSignals{Model: "claude-opus-5-5", Getenv: env("CLAUDE_CODE_ENTRYPOINT", "cli")}, 1_000_000, 977_000},
		{"200k interactively: reactive", cairn.WindowSignals{Model: "claude-sonnet-4-5", Getenv: env("CLAUDE_CODE_ENTRYPOINT", "cli")}, 200_000, 200_000},
		{"1m on 2.1.197: reactive", cairn.WindowSignals{Model: "claude-sonnet-4-5[1m]", Getenv: env("AI_AGENT", "claude-code_2-1-197_harness")}, 1_000_000, 1_000_000},
		{"disable 1m", cairn.WindowSignals{Model: "claude-sonnet-4-5[1m]", Getenv: env("CLAUDE_CODE_DISABLE_1M_CONTEXT", "1")}, 200_000, 200_000},
		{"no auto compaction", cairn.WindowSignals{Getenv: env("DISABLE_AUTO_COMPACT", "1")}, 200_000, 200_000},
	} {
		w := cairn.ClaudeCodeWindow(c.s)
		if w.Size != c.size || w.CompactAt != c.compactAt || w.Reactive != (w.CompactAt == w.Size && c.s.Configured == 0 && c.name != "no auto compaction") {
			t.Errorf("%s: %+v, want size %d, compaction at %d", c.name, w, c.size, c.compactAt)
		}
	}
	o := cairn.Occupancy{Tokens: 100_000, Window: cairn.ClaudeCodeWindow(cairn.WindowSignals{})}
	if o.Percent() != 50 {
		t.Errorf("Percent = %d, want 50", o.Percent())
	}
	// Past the compaction point, not past 100 (the client compacts
	// before the next request); the status line of 2.1.332 showed 137%
	// for 230k of a reported 200k window that the client never compacted:
	// a 200k model's figure is of the window, where the API refuses.
	for _, c := range []struct {
		s    cairn.WindowSignals
		want int
	}{
		{cairn.WindowSignals{Model: "claude-opus-5-5", Reported: 1_000_000, Tokens: 980_000}, 100},
		{cairn.WindowSignals{Model: "claude-sonnet-4-5", Reported: 200_000, Tokens: 180_000}, 90},
		{cairn.WindowSignals{Model: "claude-sonnet-4-5", Reported: 200_000, Tokens: 230_000}, 23},
		{cairn.WindowSignals{Configured: 100_000, Tokens: 230_000}, 100},
		{cairn.WindowSignals{Model: "claude-opus-5-5", Reported: 1_000_000, Tokens: 1_034_000}, 100},
	} {
		o := cairn.Occupancy{Tokens: c.s.Tokens, Window: cairn.ClaudeCodeWindow(c.s)}
		if o.Percent() != c.want {
			t.Errorf("%+v: Percent = %d, want %d", c.s, o.Percent(), c.want)
		}
	}
}
