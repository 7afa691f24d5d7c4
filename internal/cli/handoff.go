package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

func (m *Main) runHandoff(ctx context.Context, args []string) error {
	var wf wsFlags
	fs := m.newFlagSet("handoff", "[flags] TASK | --result TEXT [ID] | --show [ID] | --list", `
Hand a task to a sub-agent through state.json, the seed's protocol: parent
and child share no memory, only files.

The parent writes the task, then spawns the child with a prompt such as
"Run cairn prime, do hand-off H-001, then record what you did with
cairn handoff --result".
The child reads it (cairn prime lists open hand-offs; --show prints one),
works, and records its result. The parent reads the result with --show.

Examples:
  cairn handoff "Collect every call site of Store.Open" --expect "a list of file:line"
  cairn handoff --show H-001
  cairn handoff --result "12 call sites, listed in notes/open-calls.md" H-001
  cairn handoff --list`)
	wf.register(fs)
	expect := fs.String("expect", "", "what the parent wants back")
	result := fs.String("result", "", "record the child's result for ID (default: the only open hand-off)")
	show := fs.Bool("show", false, "print hand-off ID (default: the only open one)")
	list := fs.Bool("list", false, "list hand-offs")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	ref := ""
	if (*result != "" || *show) && fs.NArg() > 0 {
		if fs.NArg() > 1 {
			return usageError("name one hand-off")
		}
		ref = fs.Arg(0)
	}
	switch {
	case *list:
		s, err := w.ReadState()
		if err != nil {
			return err
		}
		if len(s.Handoffs) == 0 {
			fmt.Fprintln(m.Stdout, "No hand-offs. Write one with: cairn handoff \"task\"")
		}
		for _, h := range s.Handoffs {
			fmt.Fprintf(m.Stdout, "%s [%s] %s\n", h.ID, h.Status, h.Task)
		}
	case *result != "":
		h, err := w.HandoffResult(ref, *result)
		if err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "Recorded the result of %s in state.json; the parent reads it with: cairn handoff --show %s\n", h.ID, h.ID)
	case *show:
		h, err := w.FindHandoff(ref)
		if err != nil {
			return err
		}
		m.printHandoff(h)
	default:
		if fs.NArg() == 0 {
			fs.Usage()
			return usageError("handoff takes a TASK, --result, --show or --list")
		}
		h, err := w.Handoff(strings.Join(fs.Args(), " "), *expect)
		if err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "Wrote %s to state.json. Spawn the child with:\n", h.ID)
		fmt.Fprintf(m.Stdout, "  Run `cairn prime`, then do hand-off %s (`cairn handoff --show %s`); finish with `cairn handoff --result \"what you did\" %s`.\n", h.ID, h.ID, h.ID)
	}
	return nil
}

func (m *Main) printHandoff(h *cairn.Handoff) {
	fmt.Fprintf(m.Stdout, "Hand-off %s (%s), from %s at %s\n", h.ID, h.Status, h.Parent, h.Created.Format(time.RFC3339))
	fmt.Fprintf(m.Stdout, "Task: %s\n", h.Task)
	if h.Expected != "" {
		fmt.Fprintf(m.Stdout, "Expected back: %s\n", h.Expected)
	}
	if h.Status == cairn.HandoffDone {
		fmt.Fprintf(m.Stdout, "Result (by %s at %s): %s\n", h.Child, h.Done.Format(time.RFC3339), h.Result)
	}
}
