package main

import (
	"context"
	"encoding/json"
	"fmt"

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
round in full.`)
	sf.register(fs, true)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("rounds takes one SESSION")
	}
	st, err := m.openStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	sess, err := st.sessions.FindSessionByID(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID})
	if err != nil {
		return err
	}
	if sf.json {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"session": sess, "rounds": orEmpty(rounds)})
	}
	fmt.Fprintf(m.Stdout, "session %s · %d rounds · %s\n\n", sess.ID, sess.Rounds, sess.Project)
	return export.IndexTable(m.Stdout, rounds)
}
