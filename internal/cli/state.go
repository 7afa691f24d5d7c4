package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/workspace"
)

func (m *Main) runState(ctx context.Context, args []string) error {
	if len(args) > 0 && isHelpFlag(args[0]) {
		fmt.Fprint(m.Stderr, `Usage: cairn state [show] [flags] | set [flags]

state.json says where the project is: phase, current task, progress, next
steps, notes. Every session and sub-agent reads it first (cairn prime).

  show   print it (the default; --json for the file's JSON)
  set    change it: --phase, --task, --doing, --completed, --blocked,
         --unblocked, --next, --notes

Examples:
  cairn state
  cairn state set --phase development --task "Implement login"
  cairn state set --completed "API design" --next "Password reset"

"cairn state show -h" and "cairn state set -h" list every flag.
`)
		return flag.ErrHelp
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return m.runStateShow(args)
	}
	switch args[0] {
	case "show":
		return m.runStateShow(args[1:])
	case "set":
		return m.runStateSet(args[1:])
	}
	return usageError("cairn state show|set: unknown subcommand %q", args[0])
}

func (m *Main) runStateShow(args []string) error {
	var wf wsFlags
	fs := m.newFlagSet("state show", "[flags]", `
Print state.json: where the project is.

Examples:
  cairn state show
  cairn state show --json`)
	wf.register(fs)
	asJSON := fs.Bool("json", false, "print the file's JSON")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	s, err := w.ReadState()
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	printState(m.Stdout, s)
	return nil
}

func printState(w io.Writer, s *cairn.State) {
	fmt.Fprintf(w, "Phase:        %s\n", s.Phase)
	fmt.Fprintf(w, "Current task: %s\n", s.CurrentTask)
	fmt.Fprintf(w, "In progress:  %s\n", s.Progress.InProgress)
	list := func(label string, items []string) {
		fmt.Fprintf(w, "%s\n", label)
		if len(items) == 0 {
			fmt.Fprintln(w, "  (none)")
		}
		for _, it := range items {
			fmt.Fprintf(w, "  - %s\n", it)
		}
	}
	list("Completed:", s.Progress.Completed)
	list("Blocked:", s.Progress.Blocked)
	list("Next steps:", s.Progress.NextSteps)
	fmt.Fprintf(w, "Notes:        %s\n", s.Notes)
	fmt.Fprintf(w, "Last update:  %s by %s\n", s.LastUpdate.Format(time.RFC3339), s.SessionID)
}

// stateChangeFlags are the flags that change the state, shared by state
// set and sync.
type stateChangeFlags struct {
	phase, task, inProgress, notes string
	completed, blocked, unblocked  stringsFlag
	next                           stringsFlag
}

func (f *stateChangeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.phase, "phase", "", "the phase (planning, development, release…)")
	fs.StringVar(&f.task, "task", "", "the current task")
	fs.StringVar(&f.inProgress, "doing", "", "what is in progress now (\"-\" clears it)")
	fs.Var(&f.completed, "completed", "add to progress.completed (repeatable)")
	fs.Var(&f.blocked, "blocked", "add to progress.blocked (repeatable)")
	fs.Var(&f.unblocked, "unblocked", "remove from progress.blocked (repeatable)")
	fs.Var(&f.next, "next", "the next steps, in order; replaces them (repeatable)")
	fs.StringVar(&f.notes, "notes", "", "replace the notes (\"-\" clears them)")
}

func (f *stateChangeFlags) change() workspace.StateChange {
	c := workspace.StateChange{Phase: f.phase, Task: f.task, Completed: f.completed, Blocked: f.blocked, Unblocked: f.unblocked}
	if f.next != nil {
		c.NextSteps = f.next
	}
	clearable := func(v string) *string {
		if v == "-" {
			v = ""
		}
		return &v
	}
	if f.inProgress != "" {
		c.InProgress = clearable(f.inProgress)
	}
	if f.notes != "" {
		c.Notes = clearable(f.notes)
	}
	return c
}

func (m *Main) runStateSet(args []string) error {
	var wf wsFlags
	var cf stateChangeFlags
	fs := m.newFlagSet("state set", "[flags]", `
Change state.json. The file is read afresh under the workspace lock, so hand
edits are kept; last_update and session_id are stamped.

Examples:
  cairn state set --phase development --task "Implement login"
  cairn state set --completed "API design" --doing "Login endpoint"
  cairn state set --next "Registration endpoint" --next "Password reset"
  cairn state set --blocked "CORS on the proxy" --notes "Need to configure the proxy"`)
	wf.register(fs)
	cf.register(fs)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	c := cf.change()
	if c.IsZero() || fs.NArg() > 0 {
		fs.Usage()
		return usageError("state set needs at least one flag and no arguments")
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	s, err := w.UpdateState(c.Apply)
	if err != nil {
		return err
	}
	printState(m.Stdout, s)
	return nil
}
