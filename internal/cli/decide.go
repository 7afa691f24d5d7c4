package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

func (m *Main) runDecide(ctx context.Context, args []string) error {
	var wf wsFlags
	fs := m.newFlagSet("decide", "[flags] TITLE", `
Append an architecture decision record to decisions.md, numbered after the
last one. Records are never rewritten: a decision that replaces an older one
says so with --supersedes, and readers (cairn prime) leave the older one out.

Examples:
  cairn decide "Use JWT for authentication" \
      --context "Need a stateless authentication scheme" \
      --decision "JWT + refresh tokens" \
      --consequences "Must handle token expiry and revocation"
  cairn decide "Sessions in Redis" --decision "Server-side sessions" --supersedes 1`)
	wf.register(fs)
	why := fs.String("context", "", "what made the decision necessary")
	what := fs.String("decision", "", "what was decided")
	then := fs.String("consequences", "", "what follows from it")
	supersedes := fs.Int("supersedes", 0, "the number of the record this one replaces")
	status := fs.String("status", cairn.DecisionAccepted, "the record's status")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageError("decide takes a TITLE")
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	d := &cairn.Decision{Title: strings.Join(fs.Args(), " "), Status: *status, Context: *why, Decision: *what,
		Consequences: *then, Supersedes: *supersedes}
	if err := w.AppendDecision(d); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "Recorded ADR-%03d: %s\n", d.Number, d.Title)
	if d.Supersedes != 0 {
		fmt.Fprintf(m.Stdout, "It supersedes ADR-%03d, which stays in decisions.md as it was.\n", d.Supersedes)
	}
	return nil
}
