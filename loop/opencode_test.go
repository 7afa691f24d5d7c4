package loop

import (
	"strings"
	"testing"
)

// TestFromOpencode: the opencode plugin's moments as the loop's: a start
// is new whenever the plugin first sees a session (opencode keeps no copy
// of a system prompt) and FromCompact after session.compacted; idle is a
// turn's end, compact a compaction's eve, end the session's end; a prompt
// carries the occupancy at opencode's compaction point, none when the
// plugin knows no tokens or the model no context size.
func TestFromOpencode(t *testing.T) {
	for _, tc := range []struct {
		h    OpencodeHook
		kind Kind
		from string
	}{
		{OpencodeHook{Event: "start"}, Start, FromNew},
		{OpencodeHook{Event: "start", Compacted: true}, Start, FromCompact},
		{OpencodeHook{Event: "idle"}, TurnEnd, ""},
		{OpencodeHook{Event: "compact"}, PreCompact, ""},
		{OpencodeHook{Event: "end"}, End, ""},
	} {
		tc.h.SessionID, tc.h.Data, tc.h.Cwd = "ses_1", "/data/opencode", "/work"
		ev := FromOpencode(tc.h)
		if ev.Kind != tc.kind || ev.Source != tc.from || ev.Harness != Opencode || ev.Session != "ses_1" || ev.Transcript != "/data/opencode" || ev.Cwd != "/work" {
			t.Errorf("%+v: %+v", tc.h, ev)
		}
	}
	ev := FromOpencode(OpencodeHook{Event: "prompt", Prompt: "go", Tokens: 144_000, Context: 200_000, Output: 8_000, Model: "m"})
	if ev.Kind != Prompt || ev.Prompt != "go" || ev.Occupancy == nil || ev.Occupancy.Window.CompactAt != 192_000 || ev.Occupancy.Window.Size != 200_000 || ev.Occupancy.Percent() != 75 {
		t.Fatalf("prompt: %+v %+v", ev, ev.Occupancy)
	}
	for _, h := range []OpencodeHook{
		{Event: "prompt", Context: 200_000, Output: 8_000},
		{Event: "prompt", Tokens: 144_000},
	} {
		if ev := FromOpencode(h); ev.Occupancy != nil {
			t.Errorf("%+v: occupancy %+v", h, ev.Occupancy)
		}
	}
}

// TestOpencodeCompactAt: opencode's overflow point (isOverflow, 1.1.65 to
// 1.18.33): context less the reply's cap (output within 32,000), or the
// input limit less the reserve (the config's, else min(20,000, cap)).
func TestOpencodeCompactAt(t *testing.T) {
	reserved := int64(5_000)
	for _, tc := range []struct {
		context, input, output int64
		reserved               *int64
		want                   int64
	}{
		{200_000, 0, 8_000, nil, 192_000},
		{200_000, 0, 64_000, nil, 168_000},        // the cap, 32,000
		{200_000, 0, 0, nil, 168_000},             // no output limit: the cap
		{400_000, 272_000, 128_000, nil, 252_000}, // input limit less 20,000
		{400_000, 272_000, 8_000, nil, 264_000},   // less the cap when smaller
		{400_000, 272_000, 128_000, &reserved, 267_000},
		{0, 0, 8_000, nil, 0}, // no context size: opencode never compacts by itself
	} {
		if got := OpencodeCompactAt(tc.context, tc.input, tc.output, tc.reserved); got != tc.want {
			t.Errorf("context %d input %d output %d: %d, want %d", tc.context, tc.input, tc.output, got, tc.want)
		}
	}
}

// TestOpencodePressure: an opencode prompt past a threshold of the
// workspace's pressure setting is given the note once per crossing, with
// opencode's figures and what opencode does at 100 %, the person the
// figure.
func TestOpencodePressure(t *testing.T) {
	l := newLoop(t)
	prompt := func(tokens int64) Reply {
		return handle(t, l, FromOpencode(OpencodeHook{Event: "prompt", SessionID: "ses_1", Prompt: "go", Tokens: tokens, Context: 200_000, Output: 8_000}))
	}
	if r := prompt(100_000); r.Agent != "" || r.Person != "" {
		t.Errorf("below 70%%: %+v", r)
	}
	r := prompt(150_000)
	if !strings.Contains(r.Agent, "your context is 78% of the way to where opencode compacts it (150,000 of 192,000 tokens; window 200,000; past the 70% mark). At 100% opencode summarizes it") ||
		!strings.Contains(r.Agent, "cairn inject ses_1 ROUND") || !strings.Contains(r.Agent, "cairn checkpoint --session ses_1") {
		t.Errorf("agent: %s", r.Agent)
	}
	if r.Person != "cairn: context 78% of the way to opencode's compaction (150,000 of 192,000 tokens)" {
		t.Errorf("person: %q", r.Person)
	}
	if r := prompt(155_000); r.Agent != "" || r.Person != "" {
		t.Errorf("the same crossing again: %+v", r)
	}
}
