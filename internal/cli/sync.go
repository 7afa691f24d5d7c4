package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/workspace"
)

func (m *Main) runSync(ctx context.Context, args []string) error {
	var wf wsFlags
	var cf stateChangeFlags
	fs := m.newFlagSet("sync", "[flags]", `
End a session the way the next one needs: the state is updated (with the
same flags as cairn state set) and stamped, decisions since the last sync
are listed, todos are reviewed. Sync refuses when nothing was recorded since
the last one: record the state, a decision or a todo first. Commit the files
afterwards.

Examples:
  cairn sync --completed "Login endpoint" --next "Registration endpoint"
  cairn decide "Use JWT" --decision "JWT + refresh tokens" && cairn sync`)
	wf.register(fs)
	cf.register(fs)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return usageError("sync takes no arguments")
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	res, err := w.Sync(cf.change())
	if err != nil {
		return err
	}
	since := "init"
	if !res.Previous.IsZero() {
		since = res.Previous.Format(time.RFC3339)
	}
	fmt.Fprintf(m.Stdout, "Synced at %s. Changed since the last sync (%s): %s.\n", m.now().Format(time.RFC3339), since, strings.Join(res.Changed, ", "))
	fmt.Fprintf(m.Stdout, "State: %s; task: %s", res.State.Phase, orNone(res.State.CurrentTask))
	if len(res.State.Progress.NextSteps) > 0 {
		fmt.Fprintf(m.Stdout, "; next: %s", res.State.Progress.NextSteps[0])
	}
	fmt.Fprintln(m.Stdout)
	for _, d := range res.NewDecisions {
		fmt.Fprintf(m.Stdout, "New decision: ADR-%03d %s\n", d.Number, d.Title)
	}
	open := workspace.OpenTodos(res.Todos)
	fmt.Fprintf(m.Stdout, "Todos reviewed: %d open of %d.\n", len(open), len(res.Todos.Todos))
	for _, t := range open {
		fmt.Fprintf(m.Stdout, "  %s [%s] %s\n", t.ID, t.Status, t.Title)
	}
	fmt.Fprintln(m.Stdout, "Commit them: git add PROJECT.md state.json decisions.md todos.json && git commit -m \"cairn sync\"")
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
