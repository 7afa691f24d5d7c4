package loop

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/pi"
)

// TestFromPi: pi's moments as the loop's: a start resumes when what pi
// sends holds cairn's context, whatever pi's reason, and is new when it
// does not (a resume after a compaction dropped it); after a compaction it
// is FromCompact; a prompt
// carries the occupancy at pi's compaction point (window less
// reserveTokens), none when pi does not know the tokens or compacts by
// no rule.
func TestFromPi(t *testing.T) {
	c := pi.Compaction{Enabled: true, ReserveTokens: 4000}
	for _, tc := range []struct {
		h    PiHook
		kind Kind
		from string
	}{
		{PiHook{Event: "start", Reason: "startup"}, Start, FromNew},
		{PiHook{Event: "start", Reason: "startup", Resumed: true}, Start, FromResume},
		{PiHook{Event: "start", Reason: "new"}, Start, FromNew},
		{PiHook{Event: "start", Reason: "resume"}, Start, FromNew},
		{PiHook{Event: "start", Reason: "resume", Resumed: true}, Start, FromResume},
		{PiHook{Event: "start", Reason: "fork", Resumed: true}, Start, FromResume},
		{PiHook{Event: "start", Reason: "compact"}, Start, FromCompact},
		{PiHook{Event: "end", Reason: "quit"}, End, ""},
	} {
		ev := FromPi(tc.h)
		if ev.Kind != tc.kind || ev.Source != tc.from || ev.Harness != Pi {
			t.Errorf("%+v: kind %d source %q harness %q", tc.h, ev.Kind, ev.Source, ev.Harness)
		}
	}
	ev := FromPi(PiHook{Event: "prompt", Prompt: "go", Tokens: 12_000, Window: 20_000, Model: "m", Compaction: c})
	if ev.Kind != Prompt || ev.Occupancy == nil || ev.Occupancy.Window.CompactAt != 16_000 || ev.Occupancy.Percent() != 75 {
		t.Fatalf("prompt: %+v %+v", ev, ev.Occupancy)
	}
	for _, h := range []PiHook{
		{Event: "prompt", Window: 20_000, Compaction: c},
		{Event: "prompt", Tokens: 12_000, Compaction: c},
		{Event: "prompt", Tokens: 12_000, Window: 20_000, Compaction: pi.Compaction{Enabled: false, ReserveTokens: 4000}},
	} {
		if ev := FromPi(h); ev.Occupancy != nil {
			t.Errorf("%+v: occupancy %+v", h, ev.Occupancy)
		}
	}
}

// TestPiPressure: a pi prompt past a threshold of the workspace's
// pressure setting is given the note once per crossing, with pi's figures,
// the person the figure; Claude Code's transcript is not read.
func TestPiPressure(t *testing.T) {
	l := newLoop(t)
	c := pi.Compaction{Enabled: true, ReserveTokens: 4000}
	prompt := func(tokens int64) Reply {
		return handle(t, l, FromPi(PiHook{Event: "prompt", Session: "s1", Prompt: "go", Tokens: tokens, Window: 20_000, Compaction: c}))
	}
	if r := prompt(8_000); r.Agent != "" || r.Person != "" {
		t.Errorf("below 70%%: %+v", r)
	}
	r := prompt(14_000)
	if !strings.Contains(r.Agent, "your context is 87% of the way to where pi compacts it (14,000 of 16,000 tokens; window 20,000; past the 85% mark)") ||
		!strings.Contains(r.Agent, "cairn inject s1 ROUND") || !strings.Contains(r.Agent, "cairn checkpoint --session s1") {
		t.Errorf("agent: %s", r.Agent)
	}
	if r.Person != "cairn: context 87% of the way to pi's compaction (14,000 of 16,000 tokens)" {
		t.Errorf("person: %q", r.Person)
	}
	if r := prompt(14_500); r.Agent != "" {
		t.Errorf("the same crossing again: %s", r.Agent)
	}
}
