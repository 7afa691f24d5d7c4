package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/cairn-dev/cairn"
)

func (m *Main) runSessions(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("sessions", "[flags]", `
List the sessions in the store, most recent first. The sessions cairn's own
surgery cut (compress, extract, merge, split, revive) repeat rounds of their
sources and are left out unless --surgical, until someone resumes one and
works in it: then it is theirs, and listed. Subagents are left out unless
--subagents.

ROUNDS counts real user messages; API TOKENS is what the session's API calls
used, summed over every call (input, cache and output), not what its context
window holds now (cairn advise says that).

Examples:
  cairn sessions
  cairn sessions --project /home/me/src/app --since 2026-03-01
  cairn sessions --since 48h --json
  cairn sessions --agent codex
  cairn sessions --agent opencode`)
	sf.register(fs, true)
	project := fs.String("project", "", "only sessions whose working directory is this (a trailing / or * matches a prefix)")
	since := fs.String("since", "", "only sessions active since this time (RFC 3339, a date, or a duration such as 48h)")
	until := fs.String("until", "", "only sessions started before this time")
	subagents := fs.Bool("subagents", false, "include subagent sessions")
	surgical := fs.Bool("surgical", false, "include the sessions cairn's surgery cut that no one continued")
	agent := fs.String("agent", "", "only sessions of this harness: "+agentNames)
	limit := fs.Int("n", 50, "list at most this many (0: all)")
	red := redactFlag(fs)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	filter := cairn.SessionFilter{Project: *project, Subagents: *subagents, NoSurgery: !*surgical, Limit: *limit}
	var err error
	if filter.Agent, err = parseAgent(*agent); err != nil {
		return err
	}
	if filter.Since, err = parseWhen(*since); err != nil {
		return err
	}
	if filter.Until, err = parseWhen(*until); err != nil {
		return err
	}
	return m.redacted(*red, func() error { return m.listSessions(ctx, sf, filter, *surgical) })
}

// listSessions prints the sessions filter selects. A title is a preview
// that may have cut a secret: --redact drops the cut run too.
func (m *Main) listSessions(ctx context.Context, sf storeFlags, filter cairn.SessionFilter, surgical bool) error {
	st, err := m.readStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	sessions, n, err := st.sessions.FindSessions(ctx, filter)
	if err != nil {
		return err
	}
	if sf.json {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"sessions": orEmpty(sessions), "total": n})
	}
	if n == 0 {
		fmt.Fprintln(m.Stdout, "No sessions. Import some with: cairn import [PATH]")
		return nil
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tAGENT\tENDED\tROUNDS\tAPI TOKENS\tPROJECT\tTITLE")
	for _, s := range sessions {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", s.ID, s.Agent, s.EndedAt.Format("2006-01-02 15:04"), s.Rounds,
			humanTokens(s.Usage.Context()+s.Usage.Output), s.Project, s.Title)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(sessions) < n {
		fmt.Fprintf(m.Stdout, "(%d of %d; -n 0 lists all)\n", len(sessions), n)
	}
	if !surgical {
		all := filter
		all.NoSurgery, all.Limit = false, 1
		if _, total, err := st.sessions.FindSessions(ctx, all); err == nil && total > n {
			fmt.Fprintf(m.Stdout, "(%d cut by surgery not listed: --surgical lists them)\n", total-n)
		}
	}
	return nil
}

// agentNames lists the values --agent takes, one per harness cairn reads
// (parseAgent).
const agentNames = cairn.AgentClaudeCode + " | " + cairn.AgentCodex + " | " + cairn.AgentGemini + " | " + cairn.AgentOpencode + " | " + cairn.AgentPi

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func humanTokens(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// parseWhen reads a time as RFC 3339, a date, or a duration before now.
func parseWhen(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		return time.Now().Add(-d).UTC(), nil
	}
	return time.Time{}, usageError("cannot read %q as a time: use 2026-03-19, 2026-03-19T10:23Z or a duration such as 48h", s)
}
