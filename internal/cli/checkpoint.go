package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

func (m *Main) runCheckpoint(ctx context.Context, args []string) error {
	var wf wsFlags
	fs := m.newFlagSet("checkpoint", "[flags] WHAT-WAS-DONE", `
Write what you did and what comes next on the current situation's board
(board.md under "## Checkpoints"; the rest of the board is left as it is).
The current situation is where your trace last went, else the current
folder; --at names another.

Examples:
  cairn checkpoint "Parsed the iPhone backup" --next "Upload it offsite"
  cairn checkpoint --at docs "Outlined the design"`)
	wf.register(fs)
	next := fs.String("next", "", "what comes next")
	at := fs.String("at", "", "the situation's folder (default: the current situation)")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	done := strings.Join(fs.Args(), " ")
	if done == "" && *next == "" {
		fs.Usage()
		return usageError("checkpoint needs what was done, --next, or both")
	}
	w, err := m.openWorkspace(wf)
	if err != nil {
		return err
	}
	situation, err := m.current(w, *at)
	if err != nil {
		return err
	}
	if err := w.Checkpoint(situation, &cairn.Checkpoint{Done: done, Next: *next}); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "Checkpoint written on %s.\n", boardPath(situation))
	return nil
}

// current returns the situation at (a folder), or the acting session's
// current one.
func (m *Main) current(w interface {
	Situation(string) (string, error)
	Current(string) (string, error)
}, at string) (string, error) {
	if at != "" {
		dir, err := m.path(at)
		if err != nil {
			return "", err
		}
		return w.Situation(dir)
	}
	wd, err := m.Getwd()
	if err != nil {
		return "", err
	}
	here, err := w.Situation(wd)
	if err != nil {
		return "", err
	}
	return w.Current(here)
}

func boardPath(situation string) string {
	if situation == "." {
		return cairn.BoardFile
	}
	return situation + "/" + cairn.BoardFile
}
