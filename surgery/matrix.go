package surgery

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// A Matrix is the engagement × agent view of tagged rounds: who did what,
// when, in service of which workstream (seed 001). Rows are engagement
// phases (an engagement without recorded phases, or a round outside its
// phases' windows, makes a row of the engagement alone), in time order;
// columns are agent roles: the person prompting ([RoleHuman]), the main
// agent ([RoleMain]) and each subagent type; a cell lists the rounds each
// contributed in that phase. A subagent's rounds link back to the tool
// call that spawned it.
type Matrix struct {
	Rows   []MatrixRow `json:"rows"`
	Agents []string    `json:"agents"`
	// Cells[row key][agent] are the rounds, in time order.
	Cells map[string]map[string][]MatrixRound `json:"cells"`
	// Engagements are the engagements of the rows, in order.
	Engagements []string `json:"engagements"`
}

// Agent roles of the matrix's columns besides subagent types.
const (
	RoleHuman = "human" // the person whose prompt opened the round
	RoleMain  = "main"  // the main session's agent
)

// A MatrixRow is one engagement phase.
type MatrixRow struct {
	Key        string    `json:"key"` // ENGAGEMENT/PHASE, or ENGAGEMENT for rounds outside any phase
	Engagement string    `json:"engagement"`
	Phase      string    `json:"phase,omitempty"`
	StartedAt  time.Time `json:"started_at,omitzero"`
	EndedAt    time.Time `json:"ended_at,omitzero"`
}

// A MatrixRound is a round in a cell.
type MatrixRound struct {
	SessionID string    `json:"session_id"`
	Seq       int       `json:"seq"`
	StartedAt time.Time `json:"started_at"`
	// SpawnedBy is, for a subagent's round, the call that spawned it.
	SpawnedBy *Spawn `json:"spawned_by,omitempty"`
}

// A Spawn is the tool call (Task, Agent) that started a subagent.
type Spawn struct {
	SessionID   string `json:"session_id"`
	Round       int    `json:"round"`
	ToolID      string `json:"tool_id,omitempty"`
	Tool        string `json:"tool,omitempty"`
	AgentID     string `json:"agent_id,omitempty"`
	Description string `json:"description,omitempty"`
}

// BuildMatrix reads every tagged round in the store, and the engagement
// phases when st.Engagements is set.
func BuildMatrix(ctx context.Context, st Store) (*Matrix, error) {
	rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{Tagged: true})
	if err != nil {
		return nil, err
	}
	var phases []cairn.EngagementPhase
	if st.Engagements != nil {
		if phases, err = st.Engagements.FindEngagementPhases(ctx, ""); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(rounds, func(i, j int) bool { return rounds[i].StartedAt.Before(rounds[j].StartedAt) })
	mx := &Matrix{Cells: map[string]map[string][]MatrixRound{}, Rows: []MatrixRow{}, Agents: []string{}, Engagements: []string{}}
	roles := map[string]*sessionRole{}
	seenAgent, seenEngagement := map[string]bool{}, map[string]bool{}
	for _, r := range rounds {
		role, ok := roles[r.SessionID]
		if !ok {
			if role, err = st.roleOf(ctx, r.SessionID); err != nil {
				return nil, err
			}
			roles[r.SessionID] = role
		}
		row := MatrixRow{Key: r.EngagementID, Engagement: r.EngagementID}
		if p, ok := cairn.PhaseAt(phases, r.EngagementID, r.StartedAt); ok {
			row = MatrixRow{Key: p.Key(phases), Engagement: r.EngagementID, Phase: p.Name, StartedAt: p.StartedAt, EndedAt: p.EndedAt}
		}
		cells := mx.Cells[row.Key]
		if cells == nil {
			cells = map[string][]MatrixRound{}
			mx.Cells[row.Key] = cells
			if row.StartedAt.IsZero() {
				row.StartedAt = r.StartedAt // orders a phaseless row by its first round
			}
			mx.Rows = append(mx.Rows, row)
		}
		if !seenEngagement[r.EngagementID] {
			seenEngagement[r.EngagementID] = true
			mx.Engagements = append(mx.Engagements, r.EngagementID)
		}
		mr := MatrixRound{SessionID: r.SessionID, Seq: r.Seq, StartedAt: r.StartedAt, SpawnedBy: role.spawn}
		var cols []string
		if role.spawn == nil && r.Seq > 0 && r.UserPreview != "" {
			cols = append(cols, RoleHuman)
		}
		if role.spawn != nil || r.AgentPreview != "" || len(r.Tools) > 0 {
			cols = append(cols, role.column)
		}
		for _, col := range cols {
			cells[col] = append(cells[col], mr)
			seenAgent[col] = true
		}
	}
	sort.SliceStable(mx.Rows, func(i, j int) bool { return mx.Rows[i].StartedAt.Before(mx.Rows[j].StartedAt) })
	for _, a := range []string{RoleHuman, RoleMain} {
		if seenAgent[a] {
			mx.Agents = append(mx.Agents, a)
			delete(seenAgent, a)
		}
	}
	var subs []string
	for a := range seenAgent {
		subs = append(subs, a)
	}
	sort.Strings(subs)
	mx.Agents = append(mx.Agents, subs...)
	return mx, nil
}

// A sessionRole is a session's column and, for a subagent, its spawn.
type sessionRole struct {
	column string
	spawn  *Spawn
}

// SpawnOf returns the tool call that spawned the subagent session id, nil
// for a main session. Returns ENOTFOUND if the session does not exist.
func SpawnOf(ctx context.Context, st Store, id string) (*Spawn, error) {
	role, err := st.roleOf(ctx, id)
	if err != nil {
		return nil, err
	}
	return role.spawn, nil
}

// roleOf names a session's column: [RoleMain] for a main session; for a
// subagent its type, read from the input of the tool call that spawned it
// ("subagent" when unknown), with that call.
func (st Store) roleOf(ctx context.Context, id string) (*sessionRole, error) {
	s, err := st.Sessions.FindSessionByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if !s.IsSubagent() {
		return &sessionRole{column: RoleMain}, nil
	}
	role := &sessionRole{column: "subagent", spawn: &Spawn{SessionID: s.Parent, Round: s.ParentRound, AgentID: s.AgentID}}
	if s.ParentRound == 0 {
		return role, nil
	}
	r, err := st.Rounds.FindRound(ctx, s.Parent, s.ParentRound)
	if err != nil {
		return role, nil
	}
	for _, b := range r.Blocks {
		if b.Kind == cairn.ToolResult && b.AgentID == s.AgentID {
			role.spawn.ToolID = b.ToolID
		}
	}
	for _, b := range r.Blocks {
		if b.Kind == cairn.ToolUse && b.ToolID == role.spawn.ToolID && role.spawn.ToolID != "" {
			role.spawn.Tool = b.ToolName
			var in struct {
				SubagentType string `json:"subagent_type"`
				Description  string `json:"description"`
			}
			if json.Unmarshal([]byte(b.Content), &in) == nil {
				if in.SubagentType != "" {
					role.column = in.SubagentType
				}
				role.spawn.Description = in.Description
			}
		}
	}
	return role, nil
}

// Cell renders a cell's rounds compactly: session and round ranges,
// "5f0c2a1e:1-3,7"; a subagent's rounds name the round that spawned it and
// the agent, "5f0c2a1e:7→a881341:1-3". name shortens a session id (nil:
// its first 8 characters).
func Cell(rounds []MatrixRound, name func(string) string) string {
	if name == nil {
		name = short
	}
	bySession := map[string][]int{}
	var order []string
	label := map[string]string{}
	for _, r := range rounds {
		if _, ok := bySession[r.SessionID]; !ok {
			order = append(order, r.SessionID)
			label[r.SessionID] = name(r.SessionID)
			if sp := r.SpawnedBy; sp != nil {
				agent := sp.AgentID
				if agent == "" {
					agent = "agent"
				}
				label[r.SessionID] = fmt.Sprintf("%s:%d→%s", name(sp.SessionID), sp.Round, agent)
			}
		}
		bySession[r.SessionID] = append(bySession[r.SessionID], r.Seq)
	}
	var parts []string
	for _, id := range order {
		parts = append(parts, label[id]+":"+Ranges(bySession[id]))
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
