package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
	"github.com/cairn-dev/cairn/workspace"
)

func (m *Main) runAdvise(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("advise", "[flags] SESSION", `
Say which surgical operation to run on a session now, from how full its
context is (what the client held at its last reply, from the transcript's
end, else what it loads when it resumes it: the same estimate every
surgical command prints) against where the client compacts it (the figure
pressure notes and the status line show), and its engagement tags (the
seed's decision tree): nothing under half the way to compaction; a closed engagement → compress-engagement;
several live engagements → split; finished work accumulating →
compress-before; when that would not shrink what the client loads → revive.
Each candidate is tried at the default budget (`+surgery.BudgetRule+`) and
advised only if its output is smaller than what the client loads today.

  cairn advise 5c0375b4`)
	sf.register(fs, true)
	window := fs.Int64("window", 0, "context window in tokens, measured to its end (default: the client's, as its status line, the session's model and its environment say, and where it compacts)")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageError("advise takes one SESSION")
	}
	st, err := m.readStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	occ := &cairn.Occupancy{Window: cairn.Window{Size: *window, CompactAt: *window}}
	if *window == 0 {
		if s, err := st.sessions.FindSessionByID(ctx, pos[0]); err == nil {
			var w *workspace.Workspace
			if wd, err := m.Getwd(); err == nil {
				if root, ok := workspace.Find(wd); ok {
					w = workspace.New(root)
				}
			}
			if live, err := m.occupancy(w, s.ID, s.Path); err == nil && live != nil && live.Tokens > 0 {
				occ = live
			} else {
				occ.Window = m.window(w, s.ID, "", 0)
				if occ.Window.Source == "default" {
					occ.Window = cairn.Window{} // the session's model's
				}
			}
		}
	}
	a, err := surgery.AdviseAt(ctx, st.surgery(), pos[0], occ)
	if err != nil {
		return err
	}
	if sf.json {
		return json.NewEncoder(m.Stdout).Encode(a)
	}
	held := a.ContextTokens
	if a.LiveTokens > 0 {
		held = a.LiveTokens
	}
	fmt.Fprintf(m.Stdout, "session %s · context: %d%% of the way to where the client compacts (~%d of %d tokens; window %d)\n%s\n", a.Session, a.Percent, held, a.CompactAt, a.Window, a.Reason)
	if a.Command != "" {
		fmt.Fprintf(m.Stdout, "\n  %s\n", a.Command)
	}
	return nil
}
