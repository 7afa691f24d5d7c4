package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/workspace"
)

func (m *Main) runInit(ctx context.Context, args []string) error {
	var wf wsFlags
	fs := m.newFlagSet("init", "[flags] [DIR]", `
Make DIR (default: the current folder) a cairn workspace: create .cairn/ and
the relay files every session reads on a cold start and writes back before
it ends:

  PROJECT.md     who the project is (fill it in by hand)
  state.json     where it is: phase, current task, progress, next steps
  decisions.md   why: architecture decision records, append-only
  todos.json     what is left

Files that exist are kept as they are; init says which. .gitignore gets
what is machine state: .cairn/ (the store, its lock, each session's
state) but for its traces, engagement and config, and
.claude/settings.local.json (your own Claude Code settings, where cairn
install claude writes its approval and permissions); the relay files
belong in git.

Examples:
  cairn init
  cairn init ~/src/app`)
	wf.register(fs)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return usageError("init takes at most one DIR")
	}
	dir, err := m.path(".")
	if err != nil {
		return err
	}
	if fs.NArg() == 1 {
		if dir, err = m.path(fs.Arg(0)); err != nil {
			return err
		}
	}
	w := workspace.New(dir)
	w.Session, w.Now = m.sessionID(wf.session), m.now
	res, err := w.Init()
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "Workspace %s\n", dir)
	if len(res.Created) > 0 {
		fmt.Fprintf(m.Stdout, "  created: %s\n", strings.Join(res.Created, ", "))
	}
	if len(res.Kept) > 0 {
		fmt.Fprintf(m.Stdout, "  kept as it was: %s\n", strings.Join(res.Kept, ", "))
	}
	fmt.Fprintln(m.Stdout, "Next: describe the project in PROJECT.md, then cairn state set --task \"…\"; every new session starts with cairn prime.")
	return nil
}
