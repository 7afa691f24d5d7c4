package surgery

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"cairn"
)

// A Matrix is the engagement × agent view of tagged rounds: who did what in
// service of which workstream. Rows are engagements in order of their first
// round, columns agents (a main session's agent, or a subagent's type).
type Matrix struct {
	Engagements []string `json:"engagements"`
	Agents      []string `json:"agents"`
	// Cells[engagement][agent] are the rounds, in time order.
	Cells map[string]map[string][]*cairn.Round `json:"cells"`
}

// BuildMatrix reads every tagged round in the store.
func BuildMatrix(ctx context.Context, st Store) (*Matrix, error) {
	rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{Tagged: true})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(rounds, func(i, j int) bool { return rounds[i].StartedAt.Before(rounds[j].StartedAt) })
	mx := &Matrix{Cells: map[string]map[string][]*cairn.Round{}}
	agents := map[string]string{} // session → column
	seenAgent := map[string]bool{}
	for _, r := range rounds {
		col, ok := agents[r.SessionID]
		if !ok {
			if col, err = st.agentOf(ctx, r.SessionID); err != nil {
				return nil, err
			}
			agents[r.SessionID] = col
		}
		row := mx.Cells[r.EngagementID]
		if row == nil {
			row = map[string][]*cairn.Round{}
			mx.Cells[r.EngagementID] = row
			mx.Engagements = append(mx.Engagements, r.EngagementID)
		}
		row[col] = append(row[col], r)
		if !seenAgent[col] {
			seenAgent[col] = true
			mx.Agents = append(mx.Agents, col)
		}
	}
	sort.Strings(mx.Agents)
	return mx, nil
}

// agentOf names a session's column: a subagent's type, read from the input
// of the tool call that spawned it, else the session's agent.
func (st Store) agentOf(ctx context.Context, id string) (string, error) {
	s, err := st.Sessions.FindSessionByID(ctx, id)
	if err != nil {
		return "", err
	}
	if !s.IsSubagent() || s.ParentRound == 0 {
		return s.Agent, nil
	}
	r, err := st.Rounds.FindRound(ctx, s.Parent, s.ParentRound)
	if err != nil {
		return "subagent", nil
	}
	var toolID string
	for _, b := range r.Blocks {
		if b.Kind == cairn.ToolResult && b.AgentID == s.AgentID {
			toolID = b.ToolID
		}
	}
	for _, b := range r.Blocks {
		if b.Kind == cairn.ToolUse && b.ToolID == toolID && toolID != "" {
			var in struct {
				SubagentType string `json:"subagent_type"`
			}
			if json.Unmarshal([]byte(b.Content), &in) == nil && in.SubagentType != "" {
				return in.SubagentType, nil
			}
		}
	}
	return "subagent", nil
}

// Cell renders a cell's rounds compactly: session and round ranges,
// "5f0c2a1e:1-3,7"; name shortens a session id (nil: its first 8 characters).
func Cell(rounds []*cairn.Round, name func(string) string) string {
	if name == nil {
		name = short
	}
	bySession := map[string][]int{}
	var order []string
	for _, r := range rounds {
		if _, ok := bySession[r.SessionID]; !ok {
			order = append(order, r.SessionID)
		}
		bySession[r.SessionID] = append(bySession[r.SessionID], r.Seq)
	}
	var parts []string
	for _, id := range order {
		parts = append(parts, name(id)+":"+Ranges(bySession[id]))
	}
	return strings.Join(parts, " ")
}

// Ranges renders round numbers as "1-3,7".
func Ranges(seqs []int) string {
	seqs = append([]int(nil), seqs...)
	sort.Ints(seqs)
	var parts []string
	for i := 0; i < len(seqs); {
		j := i
		for j+1 < len(seqs) && seqs[j+1] <= seqs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", seqs[i], seqs[j]))
		} else {
			parts = append(parts, fmt.Sprint(seqs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// ShortNames returns a short label for each session id: the shortest
// prefix of its uuid, at least 8 characters, that tells the sessions
// apart, and for a subagent ("<uuid>-agent-<id>") its parent's label,
// "/agent-" and the shortest telling prefix (at least 8) of its agent id,
// so a parent and its subagents never read as one cut-off id.
func ShortNames(ids []string) map[string]string {
	var mains, agents []string
	for _, id := range ids {
		main, agent, ok := strings.Cut(id, "-agent-")
		mains = append(mains, main)
		if ok {
			agents = append(agents, agent)
		}
	}
	mainNames, agentNames := prefixes(mains), prefixes(agents)
	out := map[string]string{}
	for _, id := range ids {
		main, agent, ok := strings.Cut(id, "-agent-")
		out[id] = mainNames[main]
		if ok {
			out[id] += "/agent-" + agentNames[agent]
		}
	}
	return out
}

// prefixes returns the shortest prefix, at least 8 characters, of each
// distinct string that no other one starts with.
func prefixes(ss []string) map[string]string {
	out := map[string]string{}
	for _, id := range ss {
		n := min(8, len(id))
		for ; n < len(id); n++ {
			unique := true
			for _, other := range ss {
				if other != id && strings.HasPrefix(other, id[:n]) {
					unique = false
					break
				}
			}
			if unique {
				break
			}
		}
		out[id] = id[:n]
	}
	return out
}
