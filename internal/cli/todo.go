package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/workspace"
)

func (m *Main) runTodo(ctx context.Context, args []string) error {
	var wf wsFlags
	fs := m.newFlagSet("todo", "add|start|done|block|review|list [flags] [ARGS]", `
Keep todos.json, the agent's own list across sessions.

  add TITLE        a pending todo (--priority high|medium|low, --notes)
  start ID         in progress
  done ID          completed; records completed_at (--notes)
  block ID REASON  blocked; the reason goes in its notes
  review           record that every todo was reviewed (due after 24 h)
  list             open todos, in progress first (--all: completed too)

IDs are TODO-007, 007 or 7.

Examples:
  cairn todo add "Write unit tests" --priority high
  cairn todo start 2
  cairn todo block 2 "waiting for the schema"
  cairn todo done 2 --notes "covered login and logout"
  cairn todo list --all`)
	wf.register(fs)
	priority := fs.String("priority", "", "add: high, medium (default) or low")
	notes := fs.String("notes", "", "add, start, done: notes to record")
	all := fs.Bool("all", false, "list: completed todos too")
	asJSON := fs.Bool("json", false, "list: print JSON")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageError("todo needs a subcommand")
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	verb, rest := fs.Arg(0), fs.Args()[1:]
	status := map[string]string{"start": cairn.TodoInProgress, "done": cairn.TodoCompleted, "block": cairn.TodoBlocked}[verb]
	switch {
	case verb == "add":
		if len(rest) == 0 {
			return usageError("todo add takes a TITLE")
		}
		t, err := w.AddTodo(strings.Join(rest, " "), *priority, *notes)
		if err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "Added %s [%s]: %s\n", t.ID, t.Priority, t.Title)
	case status != "":
		if len(rest) == 0 {
			return usageError("todo %s takes an ID", verb)
		}
		note := *notes
		if verb == "block" {
			note = strings.Join(rest[1:], " ")
		} else if len(rest) > 1 {
			return usageError("todo %s takes one ID; notes go in --notes", verb)
		}
		t, err := w.SetTodoStatus(rest[0], status, note)
		if err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "%s is %s: %s\n", t.ID, t.Status, t.Title)
	case verb == "review":
		if _, err := w.ReviewTodos(); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "Todos reviewed at %s.\n", m.now().Format(time.RFC3339))
	case verb == "list":
		l, err := w.ReadTodos()
		if err != nil {
			return err
		}
		return m.printTodos(l, *all, *asJSON)
	default:
		return usageError("todo: unknown subcommand %q (add, start, done, block, review, list)", verb)
	}
	return nil
}

func (m *Main) printTodos(l *cairn.TodoList, all, asJSON bool) error {
	list := workspace.OpenTodos(l)
	if all {
		for _, t := range l.Todos {
			if !t.Open() {
				list = append(list, t)
			}
		}
	}
	if asJSON {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"todos": orEmpty(list), "last_review": l.LastReview})
	}
	if why := l.ReviewReason(m.now()); why != "" {
		fmt.Fprintf(m.Stdout, "Review due: %s. Review every todo, then: cairn todo review\n\n", why)
	}
	if len(list) == 0 {
		fmt.Fprintln(m.Stdout, "No open todos. Add one with: cairn todo add \"title\"")
		return nil
	}
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tPRIORITY\tTITLE\tNOTES")
	for _, t := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Status, t.Priority, t.Title, t.Notes)
	}
	return tw.Flush()
}
