package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"text/tabwriter"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/redact"
)

// A ScanRule is what `cairn scan` found for one redaction rule.
type ScanRule struct {
	Rule     string   `json:"rule"`
	Secrets  int      `json:"secrets"`  // occurrences
	Sessions []string `json:"sessions"` // the sessions holding one
}

func (m *Main) runScan(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("scan", "[flags] [SESSION...]", `
List the secrets the store holds, by rule (gitleaks' rule set and cairn's
own, such as url-credentials for a password in a URL): API keys, tokens,
passwords planted in prompts or tool output: what --redact replaces. Secrets are counted,
never printed. Nothing is changed: the stored lines stay as they were read.
--redact on export, show, search, sessions, mcp and the surgical commands,
and the viewer and the MCP server beyond this machine, replace them in what
leaves.

Examples:
  cairn scan
  cairn scan --json 5c0375b4`)
	sf.register(fs, true)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	st, err := m.openStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	var ids []string
	for _, ref := range fs.Args() {
		s, err := st.sessions.FindSessionByID(ctx, ref)
		if err != nil {
			return err
		}
		ids = append(ids, s.ID)
	}
	if len(ids) == 0 {
		sessions, _, err := st.sessions.FindSessions(ctx, cairn.SessionFilter{Subagents: true})
		if err != nil {
			return err
		}
		for _, s := range sessions {
			ids = append(ids, s.ID)
		}
	}
	r, err := redact.New()
	if err != nil {
		return fmt.Errorf("redaction rules: %w", err)
	}
	by := map[string]*ScanRule{}
	lines := 0
	for _, id := range ids {
		ls, err := st.lines.FindLines(ctx, id, 0, 0)
		if err != nil {
			return err
		}
		for _, l := range ls {
			lines++
			for _, f := range r.Find(string(l.Raw)) {
				sr := by[f.Rule]
				if sr == nil {
					sr = &ScanRule{Rule: f.Rule}
					by[f.Rule] = sr
				}
				sr.Secrets++
				if n := len(sr.Sessions); n == 0 || sr.Sessions[n-1] != id {
					sr.Sessions = append(sr.Sessions, id)
				}
			}
		}
	}
	rules := make([]*ScanRule, 0, len(by))
	for _, sr := range by {
		rules = append(rules, sr)
	}
	sort.Slice(rules, func(i, j int) bool {
		if rules[i].Secrets != rules[j].Secrets {
			return rules[i].Secrets > rules[j].Secrets
		}
		return rules[i].Rule < rules[j].Rule
	})
	if sf.json {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"sessions": len(ids), "lines": lines, "rules": orEmpty(rules)})
	}
	if len(rules) == 0 {
		fmt.Fprintf(m.Stdout, "No secrets found in %d sessions (%d lines).\n", len(ids), lines)
		return nil
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSECRETS\tSESSIONS\tFIRST SESSION")
	for _, sr := range rules {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", sr.Rule, sr.Secrets, len(sr.Sessions), sr.Sessions[0])
	}
	tw.Flush()
	fmt.Fprintf(m.Stdout, "\n%d sessions, %d lines scanned. What leaves can be redacted: cairn export --redact SESSION\n", len(ids), lines)
	return nil
}
