package surgery

import (
	"context"
	"fmt"
	"sort"

	"github.com/cairn-dev/cairn"
)

// DefaultWindow is the context window advice assumes, in tokens.
const DefaultWindow = 200_000

// Advice is the seed's surgical decision tree applied to one session: which
// operation to run now, and why.
type Advice struct {
	Session   string   `json:"session"`
	Operation string   `json:"operation"` // an operation, "revive", or "" when nothing needs doing
	Args      []string `json:"args,omitempty"`
	Command   string   `json:"command,omitempty"` // the cairn command that does it
	Reason    string   `json:"reason"`

	// ContextTokens is what the client loads when it resumes the session
	// today: [Estimate] of [Resume] (after its last compaction).
	ContextTokens int64 `json:"context_tokens"`
	Window        int64 `json:"window"`
	// LiveTokens is what the client held at the session's last reply,
	// when known (the transcript's usage: what pressure notes and the
	// status line show); CompactAt is where the client compacts, and
	// Percent the one occupancy figure every edge states: LiveTokens
	// (else ContextTokens) against CompactAt.
	LiveTokens int64 `json:"live_tokens,omitempty"`
	CompactAt  int64 `json:"compact_at"`
	Percent    int   `json:"percent"`
	// KeptTokens is the same estimate for the advised operation's output,
	// at the default budget (half the window): always less than
	// ContextTokens.
	KeptTokens int64 `json:"kept_tokens,omitempty"`
}

// Advise measures what the client loads for a session (see [Resume] and
// [Estimate]) and returns the decision tree's answer:
//
//   - under half the window: nothing to do;
//   - an engagement whose rounds all lie before the recent quarter is
//     closed: compress-engagement it;
//   - two or more engagements are live in the recent quarter: split;
//   - otherwise finished work is accumulating: compress-before the recent
//     quarter; revive when that would not shrink what the client loads.
//
// Each candidate is run (nothing written) at the default budget, half the
// window, and recommended only if its output is smaller than what the
// client loads today. window 0 is the session's model's, as
// [cairn.ClaudeCodeWindow] gives it; a window given is also where the
// occupancy is measured to.
func Advise(ctx context.Context, st Store, session string, window int64) (*Advice, error) {
	return AdviseAt(ctx, st, session, &cairn.Occupancy{Window: cairn.Window{Size: window, CompactAt: window}})
}

// AdviseAt is [Advise] measured as the client measures the session now:
// occ's Window (its Size 0: the session's model's) and, when occ.Tokens is
// not 0, what the client held at its last reply. Under half the way to
// where the client compacts, it advises nothing.
func AdviseAt(ctx context.Context, st Store, session string, occ *cairn.Occupancy) (*Advice, error) {
	orig, err := Resume(ctx, st, session)
	if err != nil {
		return nil, err
	}
	fc, err := st.facts(ctx, orig.Sources[0])
	if err != nil {
		return nil, err
	}
	win := occ.Window
	if win.Size <= 0 {
		win = cairn.ClaudeCodeWindow(cairn.WindowSignals{Model: fc.model})
	}
	window := win.Size
	// The command carries the budget advice tried when it is not the one
	// the command takes by default.
	budgetArg := []string{}
	if window/2 != DefaultBudget(fc.model) {
		budgetArg = []string{"--budget", fmt.Sprint(window / 2)}
	}
	total := Estimate(orig)
	sz, err := st.measure(ctx, session)
	if err != nil {
		return nil, err
	}
	s, rounds, size := sz.session, sz.rounds, sz.size
	a := &Advice{Session: s.ID, ContextTokens: total, Window: window, LiveTokens: occ.Tokens, CompactAt: win.CompactAt}
	held := total
	if occ.Tokens > 0 {
		held = occ.Tokens
	}
	a.Percent = (&cairn.Occupancy{Tokens: held, Window: win}).Percent()
	pct := a.Percent
	if held < win.CompactAt/2 {
		a.Reason = fmt.Sprintf("%d%% of the way to where the client compacts (~%d of %d tokens; window %d): keep working; surgery pays off past half.", pct, held, win.CompactAt, window)
		return a, nil
	}
	trial := st
	trial.Limits, trial.sizeOnly, trial.LinesOnly = Limits{Budget: window / 2}, true, true
	shrinks := func(ms ...*cairn.Materialization) (int64, bool) {
		var most int64
		for _, m := range ms {
			e := Estimate(m)
			if e >= total {
				return e, false
			}
			most = max(most, e)
		}
		return most, true
	}

	recent, _ := sz.recent()
	live, last := map[string]bool{}, map[string]int{}
	var sizes = map[string]int64{}
	for i, r := range rounds {
		if e := r.EngagementID; e != "" {
			last[e] = i
			sizes[e] += size[i]
			if i >= recent {
				live[e] = true
			}
		}
	}
	var closed []string
	for e := range last {
		if !live[e] {
			closed = append(closed, e)
		}
	}
	sort.Slice(closed, func(i, j int) bool {
		return sizes[closed[i]] > sizes[closed[j]] || (sizes[closed[i]] == sizes[closed[j]] && closed[i] < closed[j])
	})
	if len(closed) > 0 {
		e := closed[0]
		if m, err := CompressEngagement(ctx, trial, s.ID, e, cairn.FullFidelity); err == nil {
			if kept, ok := shrinks(m); ok {
				a.Operation, a.Args, a.KeptTokens = cairn.OpCompressEngagement, append(budgetArg, s.ID, e), kept
				a.Reason = fmt.Sprintf("%d%% loaded; engagement %q has no round in the recent quarter: it is closed. Collapse it to its index lines (~%d tokens) and continue with the live work.", pct, e, kept)
				return a.command(), nil
			}
		}
	}
	if len(live) >= 2 {
		if ms, err := Split(ctx, trial, s.ID, nil, cairn.FullFidelity); err == nil {
			if kept, ok := shrinks(ms...); ok {
				a.Operation, a.Args, a.KeptTokens = cairn.OpSplit, append(budgetArg, s.ID, "tags"), kept
				a.Reason = fmt.Sprintf("%d%% loaded; %d engagements are live in the recent quarter: the session serves several masters. Split it, one child per engagement (the largest ~%d tokens).", pct, len(live), kept)
				return a.command(), nil
			}
		}
	}
	at := rounds[recent].Seq
	if recent == 0 && len(rounds) > 1 {
		// The recent quarter is the whole session (a few large rounds):
		// keep only the last one in full, or the cut would compress nothing.
		at = rounds[len(rounds)-1].Seq
	}
	if recent > 0 || len(rounds) > 1 {
		if m, err := CompressBefore(ctx, trial, s.ID, Point{Seq: at}, cairn.FullFidelity); err == nil {
			if kept, ok := shrinks(m); ok {
				a.Operation, a.Args, a.KeptTokens = cairn.OpCompressBefore, append(budgetArg, s.ID, fmt.Sprint(at)), kept
				a.Reason = fmt.Sprintf("%d%% loaded; finished work is accumulating. Compress rounds before %d to the index and continue in the freed space (~%d tokens).", pct, at, kept)
				return a.command(), nil
			}
		}
	}
	m, err := Revive(ctx, trial, s.ID, "", "", cairn.FullFidelity)
	if err != nil {
		a.Reason = fmt.Sprintf("%d%% loaded, and no operation fits in half the window: %v", pct, err)
		return a, nil
	}
	a.Operation, a.Args, a.KeptTokens = cairn.OpRevive, append(budgetArg, s.ID), Estimate(m)
	a.Reason = fmt.Sprintf("%d%% loaded and compressing rounds would not shrink it (the work is in the recent rounds). Prepare a surgical session for a successor: its recent steps in full, the rest as index lines (~%d tokens).", pct, a.KeptTokens)
	return a.command(), nil
}

func (a *Advice) command() *Advice {
	a.Command = "cairn " + a.Operation
	for _, arg := range a.Args {
		a.Command += " " + arg
	}
	return a
}

// sizes are a session's rounds (with blocks) and their estimated tokens.
type sizes struct {
	session *cairn.Session
	rounds  []*cairn.Round
	size    []int64
	total   int64
}

func (st Store) measure(ctx context.Context, session string) (*sizes, error) {
	s, err := st.Sessions.FindSessionByID(ctx, session)
	if err != nil {
		return nil, err
	}
	rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.ID, FromSeq: 1, WithBlocks: true})
	if err != nil {
		return nil, err
	} else if len(rounds) == 0 {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "Session %s has no rounds.", s.ID)
	}
	sz := &sizes{session: s, rounds: rounds, size: make([]int64, len(rounds))}
	for i, r := range rounds {
		for _, b := range r.Blocks {
			sz.size[i] += int64(len(b.Content)+3) / 4
		}
		sz.total += sz.size[i]
	}
	return sz, nil
}

// recent returns the index of the first round of the recent quarter (the
// last rounds holding a quarter of the text, at least one round, and at
// least two when there are more) and the tokens they hold.
func (sz *sizes) recent() (int, int64) {
	n := len(sz.rounds)
	i, tail := n-1, sz.size[n-1]
	for i > 0 && (tail+sz.size[i-1] <= sz.total/4 || n-i < 2) {
		i--
		tail += sz.size[i]
	}
	return i, tail
}

// RecentCut returns where compress-before keeps the recent quarter of a
// session in full: revive's default cut.
func RecentCut(ctx context.Context, st Store, session string) (Point, error) {
	sz, err := st.measure(ctx, session)
	if err != nil {
		return Point{}, err
	}
	i, _ := sz.recent()
	return Point{Seq: sz.rounds[i].Seq}, nil
}
