package main

import (
	"context"
	"encoding/json"
	"fmt"

	"cairn/surgery"
)

func (m *Main) runAdvise(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("advise", "[flags] SESSION", `
Say which surgical operation to run on a session now, from what the client
loads when it resumes it (after its last compaction, the same estimate every
surgical command prints) and its engagement tags (the seed's decision tree):
nothing under half the window; a closed engagement → compress-engagement;
several live engagements → split; finished work accumulating →
compress-before; when that would not shrink what the client loads → revive.
Each candidate is tried at the default budget (`+surgery.BudgetRule+`) and
advised only if its output is smaller than what the client loads today.

  cairn advise 5c0375b4`)
	sf.register(fs, true)
	window := fs.Int64("window", 0, "context window in tokens (default: the session's model's: 200000, or 1000000 for a 1m model)")
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
	a, err := surgery.Advise(ctx, st.surgery(), pos[0], *window)
	if err != nil {
		return err
	}
	if sf.json {
		return json.NewEncoder(m.Stdout).Encode(a)
	}
	fmt.Fprintf(m.Stdout, "session %s · context window: ~%d of %d tokens in use\n%s\n", a.Session, a.ContextTokens, a.Window, a.Reason)
	if a.Command != "" {
		fmt.Fprintf(m.Stdout, "\n  %s\n", a.Command)
	}
	return nil
}
