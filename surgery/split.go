package surgery

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// Shared is the engagement of rounds every child of a split sees as an
// index: rounds mapped to it, and rounds the map leaves out.
const Shared = "shared"

// A SplitMap assigns rounds to engagements: round seq → engagement ID.
type SplitMap map[int]string

// ParseSplitMap reads a split map written as ranges,
// "1-15=shared,16-25=console,26-30=inscription", or as a JSON object from
// engagement to ranges, {"shared": "1-15", "console": "16-25,27"}.
func ParseSplitMap(s string) (SplitMap, error) {
	s = strings.TrimSpace(s)
	m := SplitMap{}
	budget := MaxListedRounds
	if strings.HasPrefix(s, "{") {
		var obj map[string]string
		if err := json.Unmarshal([]byte(s), &obj); err != nil {
			return nil, cairn.Errorf(cairn.EINVALID, "Split map: %v.", err)
		}
		for eng, ranges := range obj {
			seqs, err := parseRounds(ranges, &budget)
			if err != nil {
				return nil, err
			}
			if err := m.assign(seqs, eng); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
	for _, part := range strings.Split(s, ",") {
		ranges, eng, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || strings.TrimSpace(eng) == "" {
			return nil, cairn.Errorf(cairn.EINVALID, "Split map %q: want RANGE=ENGAGEMENT, as in 1-15=shared,16-25=console.", part)
		}
		seqs, err := parseRounds(ranges, &budget)
		if err != nil {
			return nil, err
		}
		if err := m.assign(seqs, strings.TrimSpace(eng)); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m SplitMap) assign(seqs []int, eng string) error {
	for _, seq := range seqs {
		if prev, ok := m[seq]; ok && prev != eng {
			return cairn.Errorf(cairn.EINVALID, "Split map puts round %d in both %q and %q.", seq, prev, eng)
		}
		m[seq] = eng
	}
	return nil
}

// ParseRounds reads round numbers and ranges: "3,5-9".
func ParseRounds(s string) ([]int, error) {
	budget := MaxListedRounds
	return parseRounds(s, &budget)
}

// MaxListedRounds bounds the rounds a list of rounds or a split map names
// in all, its ranges counted whole: more is refused before any is listed
// (a split map of 300 ranges of a million rounds each took minutes).
const MaxListedRounds = 100_000

// parseRounds reads a list as ParseRounds does, naming at most *budget
// rounds, which it takes from *budget.
func parseRounds(s string, budget *int) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err1 != nil || err2 != nil || a < 1 || b < a {
			return nil, cairn.Errorf(cairn.EINVALID, "Rounds %q: want numbers and ranges like 3,5-9.", part)
		}
		if b-a >= *budget {
			return nil, cairn.Errorf(cairn.EINVALID, "Rounds %q: more than %d rounds named in all.", part, MaxListedRounds)
		}
		*budget -= b - a + 1
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "No rounds in %q.", s)
	}
	return out, nil
}

// Split forks a session into one child per engagement of the map: the
// shared rounds as an index in every child, each engagement's rounds in
// full in its own. A nil map splits by the stored tags (untagged rounds
// are shared). Returns EINVALID if the map names no engagement besides
// shared, or a round the session does not have.
func Split(ctx context.Context, st Store, session string, sm SplitMap, f cairn.Fidelity) ([]*cairn.Materialization, error) {
	s, rounds, err := st.load(ctx, session)
	if err != nil {
		return nil, err
	}
	if sm == nil {
		sm = SplitMap{}
		for _, r := range rounds {
			if r.EngagementID != "" {
				sm[r.Seq] = r.EngagementID
			}
		}
	}
	have := map[int]bool{}
	for _, r := range rounds {
		have[r.Seq] = true
	}
	var missing []int
	for seq := range sm {
		if !have[seq] {
			missing = append(missing, seq)
		}
	}
	if len(missing) > 0 {
		sort.Ints(missing)
		return nil, cairn.Errorf(cairn.EINVALID, "Split map names round %d; session %s has rounds 1-%d.", missing[0], s.ID, rounds[len(rounds)-1].Seq)
	}
	// Children in order of their first round.
	var engagements []string
	seen := map[string]bool{}
	for _, r := range rounds {
		if e := sm[r.Seq]; e != "" && e != Shared && !seen[e] {
			seen[e] = true
			engagements = append(engagements, e)
		}
	}
	if len(engagements) == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "Split map names no engagement besides %q.", Shared)
	}
	var out []*cairn.Materialization
	for _, e := range engagements {
		m := newMaterialization(cairn.OpSplit, f, []*cairn.Session{s}, s.ID, e)
		m.Label = e
		for _, r := range rounds {
			c := *r
			c.EngagementID = sm[r.Seq]
			switch c.EngagementID {
			case e:
				m.Pieces = append(m.Pieces, &cairn.Piece{Round: &c, Full: true})
			case "", Shared:
				m.Pieces = append(m.Pieces, &cairn.Piece{Round: &c})
			}
		}
		if err := st.materialize(ctx, m); err != nil {
			return nil, err
		}
		// The map, not the store, says which engagement a round serves here.
		for _, p := range m.Pieces {
			if p.Full {
				p.Round.EngagementID = e
			}
		}
		m.Engagements = []string{e}
		out = append(out, m)
	}
	return out, nil
}

// ParsePoint reads where compress-before cuts: a round number ("12"), or a
// time (RFC 3339, or a prefix of one such as "2026-03-19T10:23").
func ParsePoint(s string) (Point, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(strings.TrimPrefix(s, "#")); err == nil && n > 0 {
		return Point{Seq: n}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return Point{Time: t.UTC()}, nil
		}
	}
	return Point{}, cairn.Errorf(cairn.EINVALID, "%q is neither a round number nor a time like 2026-03-19T10:23Z.", s)
}
