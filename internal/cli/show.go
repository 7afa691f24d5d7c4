package cli

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
)

func (m *Main) runShow(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("show", "[flags] SESSION [ROUND]", `
Print a round in full: the user's words, thinking, tool calls and results,
and the agent's answer, as Markdown. Without ROUND, every round.

Examples:
  cairn show 5c0375b4 3
  cairn show 5c0375b4 3 --json`)
	sf.register(fs, true)
	red := redactFlag(fs)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return usageError("show takes SESSION and an optional ROUND")
	}
	filter := cairn.RoundFilter{WithBlocks: true}
	if fs.NArg() == 2 {
		n, err := strconv.Atoi(fs.Arg(1))
		if err != nil || n < 0 {
			return usageError("ROUND must be a round number, got %q", fs.Arg(1))
		}
		filter.FromSeq, filter.ToSeq = n, n
		if n == 0 {
			filter.ToSeq = -1
		}
	}
	return m.redacted(*red, func() error {
		st, err := m.readStore(sf.store)
		if err != nil {
			return err
		}
		defer st.Close()
		sess, err := st.sessions.FindSessionByID(ctx, fs.Arg(0))
		if err != nil {
			return err
		}
		filter.SessionID = sess.ID
		var rounds []*cairn.Round
		if fs.NArg() == 2 {
			r, err := st.rounds.FindRound(ctx, sess.ID, filter.FromSeq)
			if err != nil {
				return err
			}
			rounds = []*cairn.Round{r}
		} else if rounds, err = st.rounds.FindRounds(ctx, filter); err != nil {
			return err
		}
		if sf.json {
			return json.NewEncoder(m.Stdout).Encode(map[string]any{"session": sess, "rounds": orEmpty(rounds)})
		}
		if len(rounds) == 1 {
			return export.RoundMarkdown(m.Stdout, rounds[0])
		}
		return export.Markdown(m.Stdout, sess, rounds)
	})
}
