// Package assemble builds the active context of an agent: the core of its
// mission (mission, phase, task, workspace), its place in the frame tree
// (its own working state, its ancestors' goals, its siblings' results and
// plans), relay files, and an index of files to read on demand, all within
// one token and character budget.
//
// It depends only on the cairn interfaces. [Build] is pure: a [View] and a
// budget in, a [Context] out. [Assembler] reads the view from stores.
//
// # Budget
//
// Every section (core, index, ancestors, siblings, current frame, relay
// files) is made of items that degrade one step at a time, full →
// compacted → one line → dropped, by the rules of [cairn.Budget]: first
// each section within its share, then the sections of lowest priority,
// until both caps hold as counted exactly. The output says what was cut.
// The current frame's success criteria are never dropped: when everything
// else is gone they are cut short, after its title, and marked
// "…[truncated]".
package assemble

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

// A Context is an assembled context.
type Context struct {
	Text   string      `json:"text"`
	Format Format      `json:"format"`
	Tokens int         `json:"tokens"` // counted exactly; 0 when no token cap was set
	Chars  int         `json:"chars"`
	Cuts   []cairn.Cut `json:"cuts,omitempty"`
	Frame  string      `json:"frame,omitempty"` // the current frame's ID
}

// Build renders v in format f within budget b, counting tokens with c.
// Returns EINVALID if the budget is invalid or cannot hold the current
// frame's success criteria.
func Build(v *View, b cairn.Budget, f Format, c Counter) (*Context, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if c == nil {
		c = Estimate
	}
	fm := newFormat(f)
	ft := &fitter{doc: v.items(), format: fm, budget: b, counter: c}
	text, err := ft.fit()
	if err != nil {
		return nil, err
	}
	out := &Context{Text: text, Format: f, Chars: len(text), Cuts: ft.cuts}
	if b.Tokens > 0 {
		out.Tokens = c.Count(text)
	}
	if v.Current != nil {
		out.Frame = v.Current.ID
	}
	return out, nil
}

// An Assembler reads views from stores and builds contexts.
type Assembler struct {
	Frames   cairn.FrameStore
	Missions cairn.MissionStore // optional: no core without it
	Rounds   cairn.RoundStore   // optional: no log without it
	// Sessions, when set, names the round that spawned a subagent whose
	// rounds are in the log.
	Sessions cairn.SessionStore
	Counter  Counter // default: BPE
}

// A Request says which context to assemble.
type Request struct {
	FrameID string // the current frame; "" for Owner's current frame
	Owner   string
	Budget  cairn.Budget
	Format  Format
	Files   []File     // more index entries
	Relay   []Document // workspace files to carry
}

// Assemble reads the view for r and builds its context. With no frame in
// progress the context holds the core, relay files and index only.
// Returns ENOTFOUND if r.FrameID does not exist, EINVALID as [Build].
func (a *Assembler) Assemble(ctx context.Context, r Request) (*Context, error) {
	v, err := a.View(ctx, r)
	if err != nil {
		return nil, err
	}
	c := a.Counter
	if c == nil {
		if c, err = BPE(); err != nil {
			return nil, fmt.Errorf("load tokenizer: %w", err)
		}
	}
	return Build(v, r.Budget, r.Format, c)
}

// View reads what r's context is built from.
func (a *Assembler) View(ctx context.Context, r Request) (*View, error) {
	frames, err := a.Frames.FindFrames(ctx)
	if err != nil {
		return nil, err
	}
	v := &View{Tree: cairn.NewFrameTree(frames), Files: r.Files, Relay: r.Relay}
	if r.FrameID != "" {
		if v.Current = v.Tree.Frame(r.FrameID); v.Current == nil {
			return nil, cairn.Errorf(cairn.ENOTFOUND, "No frame %q.", r.FrameID)
		}
	} else {
		v.Current = v.Tree.Current(r.Owner)
	}
	if a.Missions != nil {
		switch m, err := a.Missions.FindMission(ctx); cairn.ErrorCode(err) {
		case "":
			v.Mission = m
		case cairn.ENOTFOUND:
		default:
			return nil, err
		}
	}
	if a.Rounds != nil && v.Current != nil {
		// Only the rounds the log can show are read: a session start
		// stays as fast in a frame of thousands of rounds as in a new one.
		log := cairn.RoundFilter{FrameID: v.Current.ID}
		if v.Logged, err = a.Rounds.CountRounds(ctx, log); err != nil {
			return nil, err
		}
		log.Last = logFull + logRounds
		if v.Log, err = a.Rounds.FindRounds(ctx, log); err != nil {
			return nil, err
		}
		// The last rounds are the frame's own working history: read them
		// whole (the rest stay index lines), up to LogLines lines, so a
		// session start stays fast after a long autonomous round.
		from, lines := len(v.Log), 0
		for i := len(v.Log) - 1; i >= max(0, len(v.Log)-LogRounds); i-- {
			if lines += v.Log[i].LastLine - v.Log[i].FirstLine + 1; lines > LogLines {
				break
			}
			from = i
		}
		if err := a.withBlocks(ctx, v.Log[from:]); err != nil {
			return nil, err
		}
		if a.Sessions != nil {
			for _, r := range v.Log {
				if _, seen := v.Spawns[r.SessionID]; seen || !strings.Contains(r.SessionID, "-agent-") {
					continue
				}
				s, err := a.Sessions.FindSessionByID(ctx, r.SessionID)
				if err != nil {
					return nil, err
				}
				if v.Spawns == nil {
					v.Spawns = map[string]string{}
				}
				v.Spawns[r.SessionID] = ""
				if s.IsSubagent() && s.Parent != "" {
					v.Spawns[r.SessionID] = fmt.Sprintf("%s#%d", shortID(s.Parent), s.ParentRound)
				}
			}
		}
	}
	return v, nil
}

// withBlocks loads the blocks of rounds, in place, with one query per
// session over its range of seqs (a log is in session then seq order, so a
// session's rounds are together).
func (a *Assembler) withBlocks(ctx context.Context, rounds []*cairn.Round) error {
	for len(rounds) > 0 {
		n := 1
		for n < len(rounds) && rounds[n].SessionID == rounds[0].SessionID {
			n++
		}
		run := rounds[:n]
		rounds = rounds[n:]
		read, err := a.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: run[0].SessionID, FromSeq: run[0].Seq, ToSeq: run[n-1].Seq, WithBlocks: true})
		if err != nil {
			return err
		}
		bySeq := make(map[int]*cairn.Round, len(read))
		for _, r := range read {
			bySeq[r.Seq] = r
		}
		for _, r := range run {
			if got := bySeq[r.Seq]; got != nil {
				r.Blocks = got.Blocks
			}
		}
	}
	return nil
}
