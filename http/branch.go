package http

import (
	"net/http"
	"sort"

	"github.com/cairn-dev/cairn"
)

// A TreeFunc reads a session's stored lines as the tree its harness keeps
// (pi's: each entry names its parent, and /tree resumes from another
// leaf): the lines off the active path, the branches left, and each
// entry's parent's line (0: a root). nil off for a harness that keeps no
// tree. cmd/cairn passes pi's (pi.OffPath, pi.Parents).
type TreeFunc func(agent string, lines []*cairn.Line) (off map[int]bool, parents map[int]int)

// A Branch is a round, or the last lines of one, off the session's active
// path: a branch the person left, which resuming the session does not
// continue.
type Branch struct {
	Round     int  `json:"round"`
	Whole     bool `json:"whole"`      // the whole round; else its lines from FirstLine
	FirstLine int  `json:"first_line"` // its first line off the path
	// ForkRound and ForkLine are the round and line of the entry the
	// branch continues from, where it forks; ForkLine 0 (and ForkRound -1)
	// when it starts again from the session's beginning.
	ForkRound int `json:"fork_round"`
	ForkLine  int `json:"fork_line"`
}

// handleBranches handles GET /api/sessions/{id}/branches: the rounds of a
// session off its active path and where each forks ({"branches": [...]},
// in round order; none for a harness that keeps no tree).
func (s *Server) handleBranches(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	sess, err := s.Sessions.FindSessionByID(ctx, r.PathValue("id"))
	if err != nil {
		Error(w, r, err)
		return
	}
	branches := []Branch{}
	if s.Tree == nil || s.Lines == nil {
		writeJSON(w, http.StatusOK, map[string]any{"branches": branches})
		return
	}
	lines, err := s.Lines.FindLines(ctx, sess.ID, 0, 0)
	if err != nil {
		Error(w, r, err)
		return
	}
	off, parents := s.Tree(sess.Agent, lines)
	if len(off) == 0 {
		writeJSON(w, http.StatusOK, map[string]any{"branches": branches})
		return
	}
	rounds, err := s.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID})
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"branches": branchesOf(rounds, off, parents)})
}

// branchesOf finds the rounds that hold lines off the path (off), each
// with the round and line its first such line's parent is on.
func branchesOf(rounds []*cairn.Round, off map[int]bool, parents map[int]int) []Branch {
	sort.Slice(rounds, func(i, j int) bool { return rounds[i].FirstLine < rounds[j].FirstLine })
	roundOf := func(line int) int {
		i := sort.Search(len(rounds), func(i int) bool { return rounds[i].LastLine >= line })
		if i < len(rounds) && rounds[i].FirstLine <= line {
			return rounds[i].Seq
		}
		return -1
	}
	branches := []Branch{}
	for _, rd := range rounds {
		first := 0
		for no := rd.FirstLine; no <= rd.LastLine; no++ {
			if off[no] {
				first = no
				break
			}
		}
		if first == 0 {
			continue
		}
		whole := true // no entry of the round's before its first off the path
		for no := rd.FirstLine; no < first; no++ {
			if _, entry := parents[no]; entry {
				whole = false
			}
		}
		fork := parents[first]
		b := Branch{Round: rd.Seq, Whole: whole, FirstLine: first, ForkLine: fork, ForkRound: -1}
		if fork > 0 {
			b.ForkRound = roundOf(fork)
		}
		branches = append(branches, b)
	}
	sort.Slice(branches, func(i, j int) bool { return branches[i].Round < branches[j].Round })
	return branches
}
