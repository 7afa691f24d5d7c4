package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"cairn/surgery"
)

func (m *Main) runMatrix(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("matrix", "[flags]", `
Print the engagement × agent matrix of tagged rounds, across every session:
rows are engagements, columns agents (a main session's agent, or a
subagent's type), cells the rounds each contributed (session:rounds).
Tag rounds with "cairn tag".`)
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
			}
		}
	}
	names := surgery.ShortNames(ids)
	name := func(id string) string { return names[id] }
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "engagement\t%s\n", strings.Join(mx.Agents, "\t"))
	for _, e := range mx.Engagements {
		fmt.Fprint(tw, e)
		for _, a := range mx.Agents {
			cell := surgery.Cell(mx.Cells[e][a], name)
			if cell == "" {
				cell = "·"
			}
			fmt.Fprint(tw, "\t"+cell)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
