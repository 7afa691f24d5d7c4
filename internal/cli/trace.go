package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

func (m *Main) runTrace(ctx context.Context, args []string) error {
	var wf wsFlags
	fs := m.newFlagSet("trace", "[flags] [TO TRIGGER…]", `
With no arguments, print the acting session's trace: where it has been and
why it moved. With TO and a trigger, record a move from the current
situation (or --from) to the folder TO without engaging it; cairn engage
records moves itself.

Traces are private to a session: .cairn/traces/<session>.md, one line per
move in the form "11:15 iphone-extraction → cloud-storage | 309GB backup
needs offsite".

Examples:
  cairn trace
  cairn trace cloud-storage "309GB backup needs offsite"
  cairn trace --session 5c0375b4`)
	wf.register(fs)
	from := fs.String("from", "", "the situation left (default: the current one)")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	if fs.NArg() == 0 {
		t, err := w.FindTrace(w.Session)
		if err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "Trace of %s: %d moves, now at %s.\n", t.Session, len(t.Moves), t.Current())
		for _, mv := range t.Moves {
			fmt.Fprintf(m.Stdout, "%s %s → %s | %s\n", mv.Time.Format("2006-01-02 15:04"), mv.From, mv.To, mv.Trigger)
		}
		return nil
	}
	to, err := m.situationArg(w, fs.Arg(0))
	if err != nil {
		return err
	}
	src, err := m.current(w, *from)
	if err != nil {
		return err
	}
	mv := &cairn.Move{From: src, To: to, Trigger: strings.Join(fs.Args()[1:], " ")}
	if err := w.AppendMove(w.Session, mv); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s %s → %s | %s\n", mv.Time.UTC().Format("15:04"), mv.From, mv.To, mv.Trigger)
	return nil
}

// situationArg resolves a folder named on the command line to a
// situation.
func (m *Main) situationArg(w interface{ Situation(string) (string, error) }, arg string) (string, error) {
	dir, err := m.path(arg)
	if err != nil {
		return "", err
	}
	return w.Situation(dir)
}
