package cli

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn/workspace"
)

func (m *Main) runPrime(ctx context.Context, args []string) error {
	var wf wsFlags
	fs := m.newFlagSet("prime", "[flags]", `
Print what a new session or sub-agent must know, read from the files and
nothing else: the project's identity (PROJECT.md), its state, open
hand-offs, the active engagement, open todos and the decisions in force,
newest first. It is the cold-start procedure as one command: run it first
in every session, or have a SessionStart hook run it. What does not fit in
--chars is counted and named by the file that holds it.

Examples:
  cairn prime
  cairn prime --chars 2000`)
	wf.register(fs)
	chars := fs.Int("chars", workspace.DefaultPrimeChars, "at most this many characters")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if *chars < 200 {
		return usageError("--chars must be at least 200")
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	text, err := w.Prime(*chars)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(m.Stdout, text)
	return err
}
