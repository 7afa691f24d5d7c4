package cairn

import (
	"strconv"
	"strings"
)

// A Window is the context a client gives a session: how many tokens its
// model takes and where the client compacts on its own. Occupancy is
// measured against CompactAt, the point that matters to the agent: every
// edge (pressure notes, advise, the status line) states the same figure.
type Window struct {
	Size      int64  `json:"size"`
	CompactAt int64  `json:"compact_at"`
	Source    string `json:"source"` // what said so: "config", "status line", "model [1m]", "env CLAUDE_CODE_AUTO_COMPACT_WINDOW", …
	// Reactive is a client that does not compact at a threshold of its
	// own: it compacts when the API refuses a request for passing the
	// window, so CompactAt is the window itself.
	Reactive bool `json:"reactive,omitempty"`
}

// Claude Code's context windows and compaction rule, as measured offline
// with the real clients (TestCompactionPoint, TestCompactionPointInteractive):
// 2.1.330 compacts a 1M window by itself at a threshold, in print mode
// after a reply of 969,000 tokens and not after 965,000, interactively
// after one of 977,000 and not after 976,000,
// and a 200k model's session (claude-sonnet-4-5: after replies of 169,000
// to 1,100,000 tokens in print mode, 169,000 to 995,000 interactively)
// never: it leaves it to the API's refusal ("prompt is too long"), then
// compacts, what its autocompact_state calls not "enforced". 2.1.197
// compacts at no threshold, in either mode, whatever the model.
const (
	ClaudeWindow      = 200_000
	ClaudeLargeWindow = 1_000_000
	// The client keeps room for a reply (its model's output limit, at
	// most 20,000) and a margin of 13,000 below the window: it compacts
	// when a request would carry more.
	claudeOutputReserve = 20_000
	claudeCompactMargin = 13_000
	// claudeInteractiveMargin is the margin of an interactive session
	// (CLAUDE_CODE_ENTRYPOINT "cli"; print mode's is "sdk-cli").
	claudeInteractiveMargin = 3_000
	// claudeThreshold is the first release known to compact at a
	// threshold (a 1M window's); releases between it and 2.1.197 were
	// not tried.
	claudeThreshold = "2.1.330"
)

// WindowSignals are what the client says about a session's window, each
// zero when it said nothing.
type WindowSignals struct {
	// Configured is the context_window of .cairn/config: the person's
	// word, above everything the client says.
	Configured int64
	// Reported is the context_window_size the client's status line input
	// last carried for this session (or for its model).
	Reported int64
	// Model is the model id the transcript or a hook names; the client
	// writes "[1m]" after the id of a model given a 1M window.
	Model string
	// Tokens is the most the session's replies carried: a session past
	// 200,000 has a larger window.
	Tokens int64
	// Getenv reads the client's environment (the hooks and the commands
	// the agent runs inherit it): CLAUDE_CODE_AUTO_COMPACT_WINDOW,
	// CLAUDE_AUTOCOMPACT_PCT_OVERRIDE, CLAUDE_CODE_DISABLE_1M_CONTEXT,
	// DISABLE_AUTO_COMPACT; AI_AGENT, which names the client's release
	// (claude-code_2-1-330_harness). Nil reads nothing.
	Getenv func(string) string
}

// ClaudeCodeWindow returns the window of a Claude Code session and where
// the client compacts it. The window is, first found: Configured;
// Reported; 1,000,000 for a model named with "[1m]" (unless
// CLAUDE_CODE_DISABLE_1M_CONTEXT) or chosen so in $ANTHROPIC_MODEL, for a model the client gives 1M by
// default (Opus 5 and later: its status line says so), or when Tokens
// passed 200,000; else 200,000. Whatever said it, a window under
// 1,000,000 that Tokens passed is not the session's (the API refuses a
// request larger than its window): it is then 1,000,000, and no count of
// tokens raises a window past that; only Configured stands, the person's
// word. CLAUDE_CODE_AUTO_COMPACT_WINDOW lowers the
// window the client compacts in. The client compacts at that window less
// its reply reserve (20,000) and a margin (13,000 in print mode, 3,000
// interactively: CLAUDE_CODE_ENTRYPOINT "cli");
// CLAUDE_AUTOCOMPACT_PCT_OVERRIDE (1–100) moves it to that share of the
// window less the reserve, if lower; DISABLE_AUTO_COMPACT leaves only the
// window itself, where the API refuses and the client must compact.
// A client that compacts at no threshold of its own (a window the model
// does not give 1M, or a release before 2.1.330, AI_AGENT; unless
// CLAUDE_CODE_AUTO_COMPACT_WINDOW sets one) is Reactive: it compacts at
// the window, when the API refuses.
func ClaudeCodeWindow(s WindowSignals) Window {
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	model := strings.ToLower(s.Model)
	w := Window{Size: ClaudeWindow, Source: "default"}
	var threshold bool // the client compacts this window at a threshold of its own
	switch {
	case s.Configured > 0:
		w = Window{Size: s.Configured, Source: "config"}
	case s.Reported > 0:
		w = Window{Size: s.Reported, Source: "status line"}
		threshold = s.Reported >= ClaudeLargeWindow
	case getenv("CLAUDE_CODE_DISABLE_1M_CONTEXT") != "":
		w.Source = "env CLAUDE_CODE_DISABLE_1M_CONTEXT"
	case strings.Contains(model, "[1m]"):
		w, threshold = Window{Size: ClaudeLargeWindow, Source: "model [1m]"}, true
	case oneM(strings.ToLower(getenv("ANTHROPIC_MODEL")), model):
		// Releases before 2.1.330 write the model without its "[1m]";
		// the model the person chose is in the client's environment.
		w, threshold = Window{Size: ClaudeLargeWindow, Source: "env ANTHROPIC_MODEL [1m]"}, true
	case largeByDefault(model):
		w, threshold = Window{Size: ClaudeLargeWindow, Source: "model " + s.Model}, true
	case s.Tokens > ClaudeWindow:
		w = Window{Size: ClaudeLargeWindow, Source: "tokens past 200,000"}
	}
	if s.Tokens > w.Size && w.Size < ClaudeLargeWindow && s.Configured == 0 {
		// A request carried more than the window said: the API would
		// have refused it, so the client gives the session more (a
		// status line of 2.1.332 reported 200,000 for a session that
		// went on past 230,000 uncompacted): the largest it gives. No
		// count of tokens raises the window past that: the API refuses
		// more, and a figure of a window the client does not give made
		// the compaction point rise with the tokens (issue 42: a 1M
		// session at 1,034,000 read ctx 100% (1034k/1001k)).
		w = Window{Size: ClaudeLargeWindow, Source: "tokens past " + strconv.FormatInt(w.Size, 10) + " (" + w.Source + ")"}
	}
	compactIn := w.Size
	if n := compactWindowEnv(getenv("CLAUDE_CODE_AUTO_COMPACT_WINDOW")); n > 0 && s.Configured == 0 {
		// A window set there is one the client compacts in at its
		// threshold (its autocompact_state: a window from the
		// environment or settings is enforced).
		compactIn, threshold = min(n, compactIn), true
		w.Source += ", env CLAUDE_CODE_AUTO_COMPACT_WINDOW"
	}
	if release := claudeRelease(getenv("AI_AGENT")); release != "" && compareReleases(release, claudeThreshold) < 0 {
		threshold = false
		w.Source += ", release " + release
	}
	if s.Configured > 0 {
		// A configured window is where the person wants the notes
		// measured against: the whole of it.
		w.CompactAt = w.Size
		return w
	}
	if getenv("DISABLE_AUTO_COMPACT") != "" || getenv("DISABLE_COMPACT") != "" {
		w.CompactAt = compactIn
		return w
	}
	if !threshold {
		w.CompactAt, w.Reactive = w.Size, true
		return w
	}
	effective := compactIn - min(claudeOutputReserve, compactIn/2) // a configured toy window keeps half
	margin := int64(claudeCompactMargin)
	if getenv("CLAUDE_CODE_ENTRYPOINT") == "cli" {
		margin = claudeInteractiveMargin
	}
	at := effective - margin
	if pct, err := strconv.ParseFloat(strings.TrimSpace(getenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")), 64); err == nil && pct > 0 && pct <= 100 {
		at = min(at, int64(float64(effective)*pct/100))
	}
	if at <= 0 {
		at = effective
	}
	w.CompactAt = at
	return w
}

// claudeRelease reads the client's release from AI_AGENT, which it sets
// for its hooks and commands (claude-code_2-1-330_harness): "2.1.330",
// "" when it names none.
func claudeRelease(agent string) string {
	rest, ok := strings.CutPrefix(agent, "claude-code_")
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, "_")
	parts := strings.Split(v, "-")
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			return ""
		}
	}
	return strings.Join(parts, ".")
}

// compareReleases compares dotted releases number by number.
func compareReleases(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x - y
		}
	}
	return 0
}

// oneM reports whether chosen names model (or any, when model is "")
// with "[1m]".
func oneM(chosen, model string) bool {
	base, ok := strings.CutSuffix(chosen, "[1m]")
	return ok && (model == "" || model == base)
}

// compactWindowEnv reads CLAUDE_CODE_AUTO_COMPACT_WINDOW as the client
// does: tokens, with a k or m suffix, a bare 100 to 1000 meaning
// thousands, and at least 100,000. 0 when unset or unusable.
func compactWindowEnv(v string) int64 {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "" {
		return 0
	}
	unit := 1.0
	switch {
	case strings.HasSuffix(v, "k"):
		unit, v = 1000, v[:len(v)-1]
	case strings.HasSuffix(v, "m"):
		unit, v = 1_000_000, v[:len(v)-1]
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f*unit < 1 {
		return 0
	}
	if unit == 1 && f >= 100 && f <= 1000 {
		f *= 1000
	}
	return max(int64(f*unit+0.5), 100_000)
}

// largeByDefault reports whether the client gives model a 1M window
// without "[1m]" in its name: claude 2.1.330's status line reports
// 1,000,000 for its default model, claude-opus-5-5, and 200,000 for
// claude-sonnet-4-5 and claude-haiku-4-5.
func largeByDefault(model string) bool {
	rest, ok := strings.CutPrefix(model, "claude-opus-")
	if !ok {
		return false
	}
	major, _, _ := strings.Cut(rest, "-")
	n, err := strconv.Atoi(major)
	return err == nil && n >= 5
}

// Occupancy is how full a session's context is: the tokens the last
// request of the main conversation carried (input, cache read and cache
// creation: what the client holds), against the session's [Window].
type Occupancy struct {
	Tokens int64  `json:"tokens"`
	Model  string `json:"model,omitempty"`
	Window Window `json:"window"`
}

// Percent returns how far the context is on the way to where the client
// compacts: 100 is the compaction, and no figure goes past it (a reply
// past the point is compacted before the next request, so more than 100
// would promise a later compaction than the client's). It is the one
// figure every edge shows.
func (o *Occupancy) Percent() int {
	if o == nil || o.Window.CompactAt <= 0 {
		return 0
	}
	return int(min(o.Tokens*100/o.Window.CompactAt, 100))
}
