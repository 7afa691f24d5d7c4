package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/workspace"
)

func (m *Main) runEngage(ctx context.Context, args []string) error {
	var wf wsFlags
	fs := m.newFlagSet("engage", "[flags] PATH", `
Switch to the situation in folder PATH: write a checkpoint on the board of
the situation you leave (--done, --next), record the move in your trace
(--why), and print PATH's board and index, which hold its state. You carry
nothing across the switch; cairn back returns.

Examples:
  cairn engage cloud-storage --done "Extraction plan drafted" --next "Run it" --why "309GB backup needs offsite"
  cairn engage ../context-stack --why "noticed need for context management"`)
	wf.register(fs)
	var cf checkpointFlags
	cf.register(fs)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("engage takes one PATH")
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	to, err := m.situationArg(w, fs.Arg(0))
	if err != nil {
		return err
	}
	from, err := m.current(w, "")
	if err != nil {
		return err
	}
	e, err := w.Engage(from, to, cf.why, cf.checkpoint())
	if err != nil {
		return err
	}
	m.printEngaged(e)
	return nil
}

func (m *Main) runBack(ctx context.Context, args []string) error {
	var wf wsFlags
	fs := m.newFlagSet("back", "[flags]", `
Return to the situation you were in before the current one, as your trace
tells it: checkpoint here (--done, --next), record the move as "back", and
print the board and index there. Going back repeatedly walks the trace like
a browser's history.

Examples:
  cairn back --done "Upload started" --next "Check it in an hour"
  cairn back --why "question answered"`)
	wf.register(fs)
	var cf checkpointFlags
	cf.register(fs)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return usageError("back takes no arguments")
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	e, err := w.Back(cf.why, cf.checkpoint())
	if err != nil {
		return err
	}
	m.printEngaged(e)
	return nil
}

// checkpointFlags are the flags of a switch: the checkpoint left behind and
// the trigger of the move.
type checkpointFlags struct{ done, next, why string }

func (f *checkpointFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.done, "done", "", "checkpoint: what was done where you leave")
	fs.StringVar(&f.next, "next", "", "checkpoint: what comes next there")
	fs.StringVar(&f.why, "why", "", "the trigger: why you move")
}

func (f *checkpointFlags) checkpoint() *cairn.Checkpoint {
	if f.done == "" && f.next == "" {
		return nil
	}
	return &cairn.Checkpoint{Done: f.done, Next: f.next}
}

func (m *Main) printEngaged(e *workspace.Engaged) {
	if e.Checkpointed {
		fmt.Fprintf(m.Stdout, "Checkpoint written on %s.\n", boardPath(e.From))
	} else {
		fmt.Fprintf(m.Stderr, "cairn: left %s without a checkpoint (--done, --next write one)\n", e.From)
	}
	fmt.Fprintf(m.Stdout, "Moved %s → %s\n", e.From, e.To)
	fmt.Fprintf(m.Stdout, "\n=== %s ===\n", boardPath(e.To))
	if e.Board.Text == "" {
		fmt.Fprintln(m.Stdout, "(no board yet: cairn checkpoint writes one)")
	} else {
		fmt.Fprint(m.Stdout, ensureNewline(e.Board.Text))
	}
	index := strings.TrimSuffix(boardPath(e.To), cairn.BoardFile) + cairn.IndexFile
	fmt.Fprintf(m.Stdout, "\n=== %s ===\n", index)
	if e.HasIndex {
		fmt.Fprint(m.Stdout, ensureNewline(e.Index))
	} else {
		listing := strings.Join(e.Listing, " ")
		if listing == "" {
			listing = "nothing yet"
		}
		fmt.Fprintf(m.Stdout, "(no index.md; the folder holds: %s)\n", listing)
	}
}

func ensureNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
