package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"cairn"
)

func (m *Main) runEngagement(ctx context.Context, args []string) error {
	var wf wsFlags
	fs := m.newFlagSet("engagement", "start ID [--note TEXT] | stop | show", `
The engagement state, .cairn/engagement.md: which workstream is active and
where it stands, readable by any actor that enters the workspace. Rounds
recorded while an engagement is active are tagged with its ID.

  start ID   make ID the active engagement; on the active one, add --note
  stop       end the active engagement
  show       print it

Examples:
  cairn engagement start surgery --note "compress-before first, then merge"
  cairn engagement start surgery --note "compress-before done"
  cairn engagement show
  cairn engagement stop`)
	wf.register(fs)
	note := fs.String("note", "", "start: a note on where the work stands")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageError("engagement needs start, stop or show")
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	var e *cairn.Engagement
	switch verb := fs.Arg(0); {
	case verb == "start" && fs.NArg() == 2:
		if e, err = w.StartEngagement(fs.Arg(1), *note); err != nil {
			return err
		}
	case verb == "stop" && fs.NArg() == 1:
		if e, err = w.StopEngagement(); err != nil {
			return err
		}
	case verb == "show" && fs.NArg() == 1:
		if e, err = w.FindEngagement(); err != nil {
			return err
		} else if e == nil {
			fmt.Fprintln(m.Stdout, "No engagement yet. Start one with: cairn engagement start ID")
			return nil
		}
	default:
		fs.Usage()
		return usageError("engagement start ID | stop | show")
	}
	status := "active"
	if !e.Active {
		status = "stopped"
		if e.Stopped != nil {
			status += " at " + e.Stopped.UTC().Format(time.RFC3339)
		}
	}
	fmt.Fprintf(m.Stdout, "Engagement %s: %s (started %s by %s)\n", e.ID, status, e.Started.UTC().Format(time.RFC3339), e.Session)
	if len(e.Notes) > 0 {
		fmt.Fprintf(m.Stdout, "Notes:\n  %s\n", strings.Join(e.Notes, "\n  "))
	}
	return nil
}
