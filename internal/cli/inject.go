package cli

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

func (m *Main) runInject(ctx context.Context, args []string) error {
	var f surgeryFlags
	fs := m.newFlagSet("inject", "[flags] SESSION REF", `
Print what REF names in full from the store: a round (7; the first column of
any index table), one step of it (7.12: an assistant turn with its tool calls
and their results, as the step index lines of a long round number them), or
a run of steps (7.3-7.9, as a surgical output's index names the steps it
left out). A read: nothing changes. Printed (markdown, json) it has no
budget unless --budget is given; written as a session to resume (claude,
codex) it fits the default budget, as every other operation does.

Examples:
  cairn inject 5c0375b4 47
  cairn inject 5c0375b4 1.212
  cairn inject 5c0375b4 1.200-1.212
  cairn inject --fidelity thinking=omit 5c0375b4 47
`+surgeryFormats)
	f.register(fs, "markdown")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return usageError("inject takes SESSION and REF (7, 7.12 or 7.3-7.9)")
	}
	fid, err := f.parse()
	if err != nil {
		return err
	}
	ref, err := surgery.ParseRef(pos[1])
	if err != nil {
		return usageError("REF must be a round, a step or a run of steps (7, 7.12 or 7.3-7.9), got %q", pos[1])
	}
	if f.budget == "" && (f.format == "markdown" || f.format == "json") {
		f.budget = "0" // a read; a session to resume fits the default budget
	}
	limits, err := f.limits()
	if err != nil {
		return err
	}
	st, err := m.readStore(f.store)
	if err != nil {
		return err
	}
	defer st.Close()
	sst := st.surgery()
	sst.Limits = limits
	mat, err := surgery.InjectRef(ctx, sst, pos[0], ref, fid)
	if err != nil {
		return err
	}
	return m.emit(ctx, st, &f, []*cairn.Materialization{mat})
}
