package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"cairn"
	"cairn/workspace"
)

func (m *Main) runSuggest(ctx context.Context, args []string) error {
	var ff frameFlags
	fs := m.newFlagSet("suggest", "[--prompt TEXT] [flags]", `
List the frame operations cairn suggests now, with their reasons: what the
UserPromptSubmit hook tells the agent, in one line, at most once per frame
and rule. The rules (seed 003: "suggest frame operations when patterns are
detected"):

  size    the current frame has more than 30 rounds or 1,500 transcript
          lines: pop it (its results are drafted from its rounds), or push
          what remains as a child
  area    the frame's latest rounds read or wrote files in two or more
          folders (the first two levels under the workspace) it had not
          touched (its artifacts, its earlier steps): push a child frame
  plan    the prompt (at most 1,500 characters) lists three or more tasks:
          plan them as frames
  prompt  the prompt asks for work (a task verb) and shares no word with
          the frame's title and criteria: push a frame for it, or pop
          this one first

Examples:
  cairn suggest
  cairn suggest --prompt "1. add login 2. add logout 3. write the tests"
  cairn suggest --json`)
	ff.register(m, fs)
	prompt := fs.String("prompt", "", "a prompt to judge, as the hook judges each one")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	w, err := m.openWorkspace(ff.wsFlags)
	if err != nil {
		return err
	}
	st, err := m.openStore(ff.store)
	if err != nil {
		return err
	}
	defer st.Close()
	all, fresh, err := m.suggestions(ctx, w, st, ff.owner, *prompt, false)
	if err != nil {
		return err
	}
	if ff.json {
		type out struct {
			cairn.Suggestion
			Shown bool   `json:"shown"`
			Line  string `json:"line"`
		}
		list := []out{}
		for _, s := range all {
			list = append(list, out{s, !contains(fresh, s), s.Line()})
		}
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"suggestions": list})
	}
	if len(all) == 0 {
		fmt.Fprintln(m.Stdout, "No suggestion: the current frame's size, areas and the prompt fit it.")
		return nil
	}
	for _, s := range all {
		shown := ""
		if !contains(fresh, s) {
			shown = " (already shown to the agent)"
		}
		fmt.Fprintf(m.Stdout, "%-6s %s%s\n", s.Kind, s.Line(), shown)
	}
	return nil
}

func contains(list []cairn.Suggestion, s cairn.Suggestion) bool {
	for _, x := range list {
		if x.Kind == s.Kind && x.Frame == s.Frame {
			return true
		}
	}
	return false
}

// suggestLookback is how many of a frame's unread rounds the area rule
// reads at once: a hook must stay fast however long the frame is.
const suggestLookback = 3

// suggestions runs the suggestion rules on owner's current frame and
// prompt. It returns every suggestion that holds and those not yet shown
// for their frame; with record it remembers the areas read and marks the
// first fresh one shown (the hook shows one line at a time).
func (m *Main) suggestions(ctx context.Context, w *workspace.Workspace, st *store, owner, prompt string, record bool) (all, fresh []cairn.Suggestion, err error) {
	f, err := cairn.ActiveFrame(ctx, st.frames, owner, m.now())
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
		rounds, err := st.rounds.FindRounds(ctx, log)
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
			full, err := st.rounds.FindRound(ctx, r.SessionID, r.Seq)
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
			s.Shown[fresh[0].Kind] = m.now()
		}
		return nil
	})
	return all, fresh, err
}

// hookSuggest returns the line the UserPromptSubmit hook adds to the
// agent's context: the first suggestion not yet shown for the current
// frame, "" if none.
func (m *Main) hookSuggest(ctx context.Context, w *workspace.Workspace, prompt string) (string, error) {
	st, err := m.openStore("")
	if err != nil {
		return "", err
	}
	defer st.Close()
	_, fresh, err := m.suggestions(ctx, w, st, m.Getenv("CAIRN_AGENT"), prompt, true)
	if err != nil || len(fresh) == 0 {
		return "", err
	}
	return fresh[0].Line(), nil
}
