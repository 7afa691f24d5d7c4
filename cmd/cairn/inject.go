package main

import (
	"context"
	"strconv"

	"cairn"
	"cairn/surgery"
)

func (m *Main) runInject(ctx context.Context, args []string) error {
	var f surgeryFlags
	fs := m.newFlagSet("inject", "[flags] SESSION ROUND", `
Print one round in full from the store: the round number is the first column
of any index table. A read: nothing changes.

Examples:
  cairn inject 5c0375b4 47
  cairn inject --fidelity thinking=omit 5c0375b4 47
`+surgeryFormats)
	f.register(fs, "markdown")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return usageError("inject takes SESSION and ROUND")
	}
	fid, err := f.parse()
	if err != nil {
		return err
	}
	seq, err := strconv.Atoi(pos[1])
	if err != nil || seq < 0 {
		return usageError("ROUND must be a round number, got %q", pos[1])
	}
	st, err := m.readStore(f.store)
	if err != nil {
		return err
	}
	defer st.Close()
	mat, err := surgery.Inject(ctx, st.surgery(), pos[0], seq, fid)
	if err != nil {
		return err
	}
	return m.emit(ctx, st, &f, []*cairn.Materialization{mat})
}
