package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/cairn-dev/cairn/surgery"
)

func (m *Main) runMatrix(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("matrix", "[flags]", `
Print the engagement × agent matrix of tagged rounds, across every session:
who did what, when, in service of which workstream. Rows are engagement
phases (ENGAGEMENT/PHASE, from "cairn engagement phase"; a round outside
every recorded phase falls in a row of its engagement alone), columns agent
roles: human (the person whose prompt opened the round), main (the main
agent) and each subagent type. A cell lists the rounds each contributed
(session:rounds); a subagent's rounds name the round whose tool call
spawned it and the agent, "5f0c2a1e:7→a881341:1-3".

Tag rounds with "cairn tag"; --json has every round with its spawn.

Examples:
  cairn matrix
  cairn matrix --json | jq '.rows[].key'`)
	sf.register(fs, true)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	st, err := m.readStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	mx, err := surgery.BuildMatrix(ctx, st.surgery())
	if err != nil {
		return err
	}
	if sf.json {
		return json.NewEncoder(m.Stdout).Encode(mx)
	}
	if len(mx.Engagements) == 0 {
		fmt.Fprintln(m.Stdout, `No tagged rounds yet: "cairn tag suggest WORDS" finds candidates, "cairn tag ID SESSION ROUNDS" tags them.`)
		return nil
	}
	var ids []string
	for _, row := range mx.Cells {
		for _, rounds := range row {
			for _, r := range rounds {
				ids = append(ids, r.SessionID)
				if r.SpawnedBy != nil {
					ids = append(ids, r.SpawnedBy.SessionID)
				}
			}
		}
	}
	names := surgery.ShortNames(ids)
	name := func(id string) string { return names[id] }
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "engagement/phase\t%s\n", strings.Join(mx.Agents, "\t"))
	for _, row := range mx.Rows {
		fmt.Fprint(tw, row.Key)
		for _, a := range mx.Agents {
			cell := surgery.Cell(mx.Cells[row.Key][a], name)
			if cell == "" {
				cell = "·"
			}
			fmt.Fprint(tw, "\t"+cell)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
