package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"cairn"
	"cairn/export"
)

func (m *Main) runRounds(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("rounds", "[flags] SESSION", `
Print a session's rounds as an index table, one line per round:

  | 047 | 2026-03-19T10:23Z | user→assistant | [tool_use: Read] → "first 80 chars…" |

Round 000, when present, holds what came before the first prompt. SESSION is
a session uuid or a unique prefix of one. "cairn show SESSION N" prints a
round in full.

--engagement ID lists that engagement's rounds, across every session when no
SESSION is given: the canonical query of engagement archaeology.

  cairn rounds 5c0375b4
  cairn rounds --engagement console-work`)
	sf.register(fs, true)
	engagement := fs.String("engagement", "", "only rounds tagged with this engagement")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 || (fs.NArg() == 0 && *engagement == "") {
		fs.Usage()
		return usageError("rounds takes one SESSION (or --engagement ID)")
	}
	st, err := m.readStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	if fs.NArg() == 0 {
		return m.engagementRounds(ctx, st, *engagement, sf.json)
	}
	sess, err := st.sessions.FindSessionByID(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID, EngagementID: *engagement})
	if err != nil {
		return err
	}
	if sf.json {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"session": sess, "rounds": orEmpty(rounds)})
	}
	fmt.Fprintf(m.Stdout, "session %s · %d rounds · %s\n\n", sess.ID, sess.Rounds, sess.Project)
	return export.IndexTable(m.Stdout, rounds)
}

// engagementRounds prints an engagement's rounds across sessions, by time.
func (m *Main) engagementRounds(ctx context.Context, st *store, id string, asJSON bool) error {
	rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{EngagementID: id})
	if err != nil {
		return err
	}
	sort.SliceStable(rounds, func(i, j int) bool { return rounds[i].StartedAt.Before(rounds[j].StartedAt) })
	if asJSON {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"engagement": id, "rounds": orEmpty(rounds)})
	}
	fmt.Fprintf(m.Stdout, "engagement %s · %d rounds\n\n| session | # | time | roles | content |\n|---|---|---|---|---|\n", id, len(rounds))
	for _, r := range rounds {
		fmt.Fprintf(m.Stdout, "| %s %s\n", r.SessionID, export.IndexLine(r))
	}
	return nil
}
