package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

func (m *Main) runRecover(ctx context.Context, args []string) error {
	fs := m.newFlagSet("recover", "SESSION", `
Rebuild where a session was and what it was doing from its trace and the
boards and indices of the situations it went through: after a crash, a
compaction, or to pick up another agent's work.

Examples:
  cairn recover 5c0375b4
  cairn recover default`)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("recover takes one SESSION")
	}
	w, err := m.openWorkspace(wsFlags{session: fs.Arg(0)})
	if err != nil {
		return err
	}
	r, err := w.Recover(fs.Arg(0))
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "Session %s: %d moves.\n", fs.Arg(0), len(r.Trace.Moves))
	fmt.Fprintf(m.Stdout, "Path: %s\n", strings.Join(r.Path, " → "))
	fmt.Fprintf(m.Stdout, "Now at %s since %s", r.Current, r.Arrived.Time.UTC().Format(time.RFC3339))
	if r.Arrived.Trigger != "" {
		fmt.Fprintf(m.Stdout, " (%s)", r.Arrived.Trigger)
	}
	fmt.Fprintln(m.Stdout, ".")
	fmt.Fprintln(m.Stdout, "\nLast checkpoints of this session, by situation:")
	for _, v := range r.Visited {
		if v.Last == nil {
			fmt.Fprintf(m.Stdout, "  %s: none\n", v.Situation)
			continue
		}
		fmt.Fprintf(m.Stdout, "  %s (%s): done: %s; next: %s\n", v.Situation, v.Last.Time.UTC().Format(time.RFC3339),
			orNone(v.Last.Done), orNone(v.Last.Next))
	}
	if last := r.Board.Last(); last != nil {
		fmt.Fprintf(m.Stdout, "\nLatest on %s (by %s): done: %s; next: %s\n", boardPath(r.Current), last.Session, orNone(last.Done), orNone(last.Next))
	}
	if r.HasIndex {
		fmt.Fprintf(m.Stdout, "\n=== %s index.md ===\n%s", r.Current, ensureNewline(r.Index))
	}
	fmt.Fprintf(m.Stdout, "\nResume with: cairn engage %s --session %s\n", r.Current, fs.Arg(0))
	return nil
}
