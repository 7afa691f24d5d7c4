package cli

import (
	"context"

	"github.com/cairn-dev/cairn"
)

func (m *Main) runPlan(ctx context.Context, args []string) error {
	var ff frameFlags
	fs := m.newFlagSet("plan", "[flags] TITLE", `
Sketch work ahead: add a planned frame under --parent (default: your
current frame). Plans are cheap and mutable: add frames as you discover
them, edit a planned frame with --edit, drop one with "cairn invalidate".
Planned frames whose dependencies are complete show in "cairn ready",
where parallel agents can each claim one. A planned frame records the
session that planned it, as a pushed one does; claiming it later makes
the claimer its owner, and leaves its session as it was.

Examples:
  cairn plan "CRUD endpoints" --parent api --id crud --criteria "GET/POST/PUT/DELETE for tasks"
  cairn plan "Pagination" --parent api --criteria "cursor pagination" --depends crud
  cairn plan --edit crud --criteria "GET/POST/PUT/DELETE for tasks and projects"`)
	ff.register(m, fs)
	criteria := fs.String("criteria", "", "what done means, in verifiable terms (required)")
	compact := fs.String("compact", "", "a dense version of the criteria")
	parent := fs.String("parent", "", "the parent frame (default: your current frame; none: a planned root)")
	id := fs.String("id", "", "the frame's ID (default: assigned)")
	edit := fs.String("edit", "", "edit this planned frame instead of adding one")
	var deps listFlag
	fs.Var(&deps, "depends", "frames that must complete first (repeat or comma-separate)")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	st, err := m.openStore(ff.store)
	if err != nil {
		return err
	}
	defer st.Close()
	if *edit != "" {
		if fs.NArg() > 1 {
			return usageError("plan --edit takes at most one new TITLE")
		}
		e := cairn.Frame{Title: fs.Arg(0), SuccessCriteria: *criteria, SuccessCriteriaCompacted: *compact}
		if deps != nil {
			e.DependsOn = deps
		}
		c, err := st.stack().Replan(ctx, *edit, e)
		if err != nil {
			return err
		}
		return m.printChange(ff.json, "edited", c)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("plan takes one TITLE")
	}
	parentID := *parent
	if parentID == "" {
		switch cur, err := st.stack().Current(ctx, ff.owner); cairn.ErrorCode(err) {
		case "":
			parentID = cur.ID
		case cairn.ENOTFOUND:
		default:
			return err
		}
	}
	f := &cairn.Frame{ID: *id, Title: fs.Arg(0), SuccessCriteria: *criteria, SuccessCriteriaCompacted: *compact, DependsOn: deps,
		SessionID: m.knownSession(ff.session)}
	c, err := st.stack().Plan(ctx, parentID, []*cairn.Frame{f})
	if err != nil {
		return err
	}
	return m.printChange(ff.json, "planned", c)
}
