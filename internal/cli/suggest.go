package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/loop"
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
	all, fresh, err := loop.Suggestions(ctx, w, st.frames, st.rounds, ff.owner, *prompt, m.now(), false)
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
