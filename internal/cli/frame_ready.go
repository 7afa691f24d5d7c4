package cli

import (
	"context"
	"encoding/json"
	"fmt"
)

func (m *Main) runReady(ctx context.Context, args []string) error {
	var ff frameFlags
	fs := m.newFlagSet("ready", "[flags]", `
List the planned frames that can start now: their dependencies are
complete and nothing above them is finished or blocked.

With --claim, take the first one and start it, as --as (or $CAIRN_AGENT).
Claiming is atomic: when several agents claim at once, each gets a
different frame. It exits 1 with "No frame is ready" when none is left.

Examples:
  cairn ready
  CAIRN_AGENT=agent-2 cairn ready --claim
  cairn ready --claim --as agent-3 --json`)
	ff.register(m, fs)
	claim := fs.Bool("claim", false, "claim and start the first ready frame")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	open := m.readStore
	if *claim {
		open = m.openStore
	}
	st, err := open(ff.store)
	if err != nil {
		return err
	}
	defer st.Close()
	if *claim {
		f, err := st.stack().Claim(ctx, ff.owner)
		if err != nil {
			return err
		}
		if ff.json {
			return json.NewEncoder(m.Stdout).Encode(f)
		}
		fmt.Fprintf(m.Stdout, "claimed %s %s\nsuccess criteria: %s\n", f.ID, f.Title, f.SuccessCriteria)
		return nil
	}
	tree, err := st.stack().Tree(ctx)
	if err != nil {
		return err
	}
	ready := tree.Ready()
	if ff.json {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"frames": orEmpty(ready)})
	}
	if len(ready) == 0 {
		fmt.Fprintln(m.Stdout, "No frame is ready.")
		return nil
	}
	for _, f := range ready {
		fmt.Fprintf(m.Stdout, "%s  %s  %s\n", f.ID, f.Title, f.CriteriaCompacted())
	}
	return nil
}
