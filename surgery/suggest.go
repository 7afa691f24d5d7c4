package surgery

import (
	"context"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn"
)

// A Candidate is a round full-text search suggests for an engagement.
type Candidate struct {
	Hit     *cairn.Hit `json:"hit"`
	Matched int        `json:"matched"` // how many of the words it matched
}

// EngagementID returns the engagement words name by default: lowercased
// and joined with '-', so "Console work" is console-work.
func EngagementID(words string) string {
	return strings.Join(strings.Fields(strings.ToLower(words)), "-")
}

// Suggest returns the rounds whose user or assistant text matches any of
// words, as candidates for an engagement: those matching more words first,
// then by session and round, at most limit. sessionID, when set, limits
// the search to one session. Round 0 is never a candidate. Returns
// EINVALID when words holds no word.
func Suggest(ctx context.Context, s cairn.Searcher, words, sessionID string, limit int) ([]*Candidate, error) {
	ws := strings.Fields(strings.ToLower(words))
	if len(ws) == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "Tag suggestions need words to search for.")
	}
	// Every word on its own: a round about the console but not "work" is
	// still a candidate; rounds matching more words rank first.
	type key struct {
		session string
		seq     int
	}
	byRound := map[key]*Candidate{}
	q := cairn.SearchQuery{SessionID: sessionID, Limit: limit}
	for _, w := range ws {
		q.Text = w
		hits, err := s.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			if h.RoundSeq == 0 {
				continue
			}
			k := key{h.SessionID, h.RoundSeq}
			if c := byRound[k]; c != nil {
				c.Matched++
			} else {
				byRound[k] = &Candidate{Hit: h, Matched: 1}
			}
		}
	}
	cands := make([]*Candidate, 0, len(byRound))
	for _, c := range byRound {
		cands = append(cands, c)
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.Matched != b.Matched {
			return a.Matched > b.Matched
		} else if a.Hit.SessionID != b.Hit.SessionID {
			return a.Hit.SessionID < b.Hit.SessionID
		}
		return a.Hit.RoundSeq < b.Hit.RoundSeq
	})
	if limit > 0 && len(cands) > limit {
		cands = cands[:limit]
	}
	return cands, nil
}
