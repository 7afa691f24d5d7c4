package loop

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/workspace"
)

// suggestLookback is how many of a frame's unread rounds the area rule
// reads at once: a hook must stay fast however long the frame is.
const suggestLookback = 3

// Suggestions runs the suggestion rules on owner's current frame at now
// and prompt. It returns every suggestion that holds and those not yet shown
// for their frame; with record it remembers the areas read and marks the
// first fresh one shown (the hook shows one line at a time).
func Suggestions(ctx context.Context, w *workspace.Workspace, frames cairn.FrameStore, store cairn.RoundStore, owner, prompt string, now time.Time, record bool) (all, fresh []cairn.Suggestion, err error) {
	f, err := cairn.ActiveFrame(ctx, frames, owner, now)
	if cairn.ErrorCode(err) == cairn.ENOTFOUND {
		f, err = nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	frameID := ""
	if f != nil {
		frameID = f.ID
	}
	state, err := w.ReadSuggestState(frameID)
	if err != nil {
		return nil, nil, err
	}
	add := func(s *cairn.Suggestion) {
		if s != nil {
			all = append(all, *s)
			if _, shown := state.Shown[s.Kind]; !shown {
				fresh = append(fresh, *s)
			}
		}
	}
	areas, seen := state.Areas, map[string]int{}
	for k, v := range state.Seen {
		seen[k] = v
	}
	if f != nil {
		log := cairn.RoundFilter{FrameID: f.ID}
		if _, shown := state.Shown[cairn.SuggestSize]; shown && record {
			// The size rule has had its say in this frame: the hook needs
			// only the last rounds, for the area rule, however long the
			// frame grows.
			log.Last = cairn.SuggestMaxRounds
		}
		rounds, err := store.FindRounds(ctx, log)
		if err != nil {
			return nil, nil, err
		}
		if log.Last == 0 {
			add(cairn.SuggestBySize(f, rounds))
		}
		if len(areas) == 0 {
			for _, a := range f.Artifacts {
				areas = append(areas, cairn.Area(w.Root, a))
			}
		}
		var unread []*cairn.Round
		for _, r := range rounds {
			if r.Seq > seen[r.SessionID] {
				unread = append(unread, r)
			}
		}
		var area *cairn.Suggestion
		for _, r := range unread[max(0, len(unread)-suggestLookback):] {
			full, err := store.FindRound(ctx, r.SessionID, r.Seq)
			if err != nil {
				return nil, nil, err
			}
			var s *cairn.Suggestion
			if s, areas = cairn.SuggestByArea(f, w.Root, areas, cairn.StepPaths(full)); s != nil {
				area = s
			}
		}
		for _, r := range unread {
			seen[r.SessionID] = max(seen[r.SessionID], r.Seq)
		}
		add(area)
		if prompt != "" {
			add(cairn.SuggestByPrompt(f, prompt))
		}
	}
	if prompt != "" {
		add(cairn.SuggestByPlan(frameID, prompt))
	}
	if !record {
		return all, fresh, nil
	}
	err = w.UpdateSuggestState(frameID, func(s *workspace.SuggestState) error {
		s.Areas, s.Seen = areas, seen
		if len(fresh) > 0 {
			if s.Shown == nil {
				s.Shown = map[string]time.Time{}
			}
			s.Shown[fresh[0].Kind] = now
		}
		return nil
	})
	return all, fresh, err
}

// suggest returns the line a prompt adds to the agent's context: the
// first suggestion not yet shown for the current frame, "" if none.
func (l *Loop) suggest(ctx context.Context, prompt string) (string, error) {
	st, err := l.Open()
	if err != nil {
		return "", err
	}
	_, fresh, err := Suggestions(ctx, l.Workspace, st.Frames, st.Rounds, l.Owner, prompt, l.now(), true)
	if err != nil || len(fresh) == 0 {
		return "", err
	}
	return fresh[0].Line(), nil
}
