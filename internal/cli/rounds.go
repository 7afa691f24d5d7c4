package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/surgery"
)

func (m *Main) runRounds(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("rounds", "[flags] SESSION [FROM-TO]", `
Print a session's rounds as an index table, one line per round (FROM-TO: only
those rounds, as a surgical output's runs of rounds name them):

  | 047 | 2026-03-19T10:23Z | user→assistant | [tool_use: Read] → "first 80 chars…" |

Round 000, when present, holds what came before the first prompt. SESSION is
a session uuid or a unique prefix of one. "cairn show SESSION N" prints a
round in full. Where Claude Code compacted the session (compact_boundary
lines), the round, line, time, trigger and pre-compaction tokens follow the
table (and "compactions" in --json).

--engagement ID lists that engagement's rounds, across every session when no
SESSION is given: the canonical query of engagement archaeology.

  cairn rounds 5c0375b4
  cairn rounds 5c0375b4 1-25
  cairn rounds --engagement console-work`)
	sf.register(fs, true)
	engagement := fs.String("engagement", "", "only rounds tagged with this engagement")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 2 || (fs.NArg() == 0 && *engagement == "") {
		fs.Usage()
		return usageError("rounds takes one SESSION and maybe FROM-TO (or --engagement ID)")
	}
	var from, to int
	if fs.NArg() == 2 {
		a, b, ok := strings.Cut(fs.Arg(1), "-")
		var err1, err2 error
		from, err1 = strconv.Atoi(a)
		to, err2 = strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || from < 0 || to < from {
			return usageError("FROM-TO must be two round numbers, the first no larger, got %q", fs.Arg(1))
		}
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
	rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID, EngagementID: *engagement, FromSeq: from, ToSeq: to})
	if err != nil {
		return err
	}
	compactions, err := surgery.Compactions(ctx, st.surgery(), sess.ID)
	if err != nil {
		return err
	}
	if sf.json {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"session": sess, "rounds": orEmpty(rounds), "compactions": orEmpty(compactions)})
	}
	fmt.Fprintf(m.Stdout, "session %s · %d rounds · %s\n\n", sess.ID, sess.Rounds, sess.Project)
	if err := export.IndexTable(m.Stdout, rounds); err != nil {
		return err
	}
	if len(compactions) > 0 {
		times := fmt.Sprintf("%d times", len(compactions))
		if len(compactions) == 1 {
			times = "once"
		}
		fmt.Fprintf(m.Stdout, "\nClaude Code compacted this session %s; the client loads only what follows the last boundary:\n", times)
		for _, c := range compactions {
			fmt.Fprintf(m.Stdout, "  round %03d · line %d · %s · %s · %d tokens before\n",
				c.RoundSeq, c.Line, c.At.UTC().Format(export.IndexTimeFormat), orDash(c.Trigger), c.PreTokens)
		}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
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
