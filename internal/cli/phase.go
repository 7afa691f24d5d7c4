package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cairn-dev/cairn"
)

func (m *Main) runPhase(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("phase", "[flags] next NAME --task TEXT | recover | list", `
Move the mission to its next phase. A phase's outputs are files: name them
with --output, and the next session's core says the new phase and lists
them, to read on demand rather than carry.

When an agent's context runs out, "phase recover" takes the same path: it
restarts the current phase from its boundary, with the core and the index
of files produced so far, so the fresh agent reads files instead of
remembering.

Examples:
  cairn phase next RESEARCH --task "Find sources on AI regulation, EU and US"
  cairn phase next SYNTHESIS --task "Write the report from the corpus" --output corpus/*.md
  cairn phase recover --output work_products/chapter_1.html
  cairn phase list --json`)
	sf.register(fs, true)
	task := fs.String("task", "", "what the agent should do in the new phase")
	var outputs listFlag
	fs.Var(&outputs, "output", "a file the finished phase produced (repeat)")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	open := m.readStore
	if verb := fs.Arg(0); verb == "next" || verb == "recover" {
		open = m.openStore
	}
	st, err := open(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	switch verb := fs.Arg(0); verb {
	case "next", "recover":
		mis, err := m.syncMission(ctx, st, sf.store == "")
		if err != nil {
			return err
		}
		name, reason := fs.Arg(1), cairn.PhaseNext
		if verb == "recover" {
			reason = cairn.PhaseRecovery
		} else if name == "" {
			fs.Usage()
			return usageError("phase next takes a NAME")
		}
		p, err := cairn.NextPhase(mis, name, *task, outputs, reason)
		if err != nil {
			return err
		}
		if err := st.missions.AddPhase(ctx, p); err != nil {
			return err
		}
		if mis, err = m.syncMission(ctx, st, sf.store == ""); err != nil {
			return err
		}
		return m.printMission(sf.json, mis)
	case "list", "":
		phases, err := st.missions.FindPhases(ctx)
		if err != nil {
			return err
		}
		if sf.json {
			return json.NewEncoder(m.Stdout).Encode(map[string]any{"phases": orEmpty(phases)})
		}
		if len(phases) == 0 {
			fmt.Fprintln(m.Stdout, `No phases yet: cairn phase next NAME --task "…" starts the mission's first (cairn mission set first).`)
		}
		for _, p := range phases {
			fmt.Fprintf(m.Stdout, "%d  %-12s %-9s %s  %s\n", p.Seq, p.Name, p.Reason, p.StartedAt.Format("2006-01-02 15:04"), p.Task)
		}
		return nil
	default:
		fs.Usage()
		return usageError("unknown phase verb %q: use next, recover or list", verb)
	}
}
