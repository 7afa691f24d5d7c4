package surgery

import (
	"context"
	"fmt"
	"sort"

	"cairn"
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

	ContextTokens int64 `json:"context_tokens"` // estimated tokens the session holds in context
	Window        int64 `json:"window"`
	KeptTokens    int64 `json:"kept_tokens,omitempty"` // what stays in full after the advised operation
}

// Advise reads a session's size and tags and returns the decision tree's
// answer:
//
//   - under half the window: nothing to do;
//   - an engagement whose rounds all lie before the recent quarter is
//     closed: compress-engagement it;
//   - two or more engagements are live in the recent quarter: split;
//   - otherwise finished work is accumulating: compress-before the recent
//     quarter, or, when even the recent quarter would fill three quarters of
//     the window, revive: the successor starts from that compressed session.
//
// The size is the larger of the last round's reported usage and the text
// the rounds hold (four characters a token).
func Advise(ctx context.Context, st Store, session string, window int64) (*Advice, error) {
	if window <= 0 {
		window = DefaultWindow
	}
	sz, err := st.measure(ctx, session)
	if err != nil {
		return nil, err
	}
	s, rounds, size, total := sz.session, sz.rounds, sz.size, sz.total
	if last := rounds[len(rounds)-1]; last.Usage.Context() > 0 {
		msgs := map[string]bool{}
		for _, b := range last.Blocks {
			if b.MessageID != "" {
				msgs[b.MessageID] = true
			}
		}
		if n := int64(max(len(msgs), 1)); last.Usage.Context()/n > total {
			total = last.Usage.Context() / n
		}
	}
	a := &Advice{Session: s.ID, ContextTokens: total, Window: window}
	pct := 100 * total / window
	if total < window/2 {
		a.Reason = fmt.Sprintf("%d%% of a %d-token window is in use: keep working; surgery pays off past half.", pct, window)
		return a, nil
	}

	recent, tail := sz.recent()
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
	switch {
	case len(closed) > 0:
		e := closed[0]
		a.Operation, a.Args, a.KeptTokens = cairn.OpCompressEngagement, []string{s.ID, e}, total-sizes[e]
		a.Reason = fmt.Sprintf("%d%% in use; engagement %q has no round in the recent quarter: it is closed. Collapse it to its index lines and continue with the live work.", pct, e)
	case len(live) >= 2:
		a.Operation, a.Args = cairn.OpSplit, []string{s.ID, "tags"}
		a.Reason = fmt.Sprintf("%d%% in use; %d engagements are live in the recent quarter: the session serves several masters. Split it, one child per engagement.", pct, len(live))
	default:
		at := rounds[recent].Seq
		if recent == 0 && len(rounds) > 1 {
			// The recent quarter is the whole session (a few large rounds):
			// keep only the last one in full, or the cut would compress nothing.
			at = rounds[len(rounds)-1].Seq
		}
		a.Operation, a.Args, a.KeptTokens = cairn.OpCompressBefore, []string{s.ID, fmt.Sprint(at)}, tail
		a.Reason = fmt.Sprintf("%d%% in use; finished work is accumulating. Compress rounds before %d to the index and continue in the freed space.", pct, at)
		if tail > window*3/4 {
			a.Operation = "revive"
			a.Args = []string{s.ID, "--before", fmt.Sprint(at)}
			a.Reason = fmt.Sprintf("%d%% in use and the recent rounds alone fill %d%%: nothing more to compress. Prepare a surgical session for a successor.", pct, 100*tail/window)
		}
	}
	a.Command = "cairn " + a.Operation
	for _, arg := range a.Args {
		a.Command += " " + arg
	}
	return a, nil
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
