package main

import (
	"context"

	"cairn"
	"cairn/surgery"
)

func (m *Main) runMerge(ctx context.Context, args []string) error {
	var f surgeryFlags
	fs := m.newFlagSet("merge", "[flags] SESSION1 SESSION2", `
Interleave the rounds of two sessions by time, all in full. Every round keeps
its provenance: the summary the agent reads first lists which session each
round came from (A or B), and every line carries cairnSource. Conflicts are
not resolved: that is the reading agent's work.

Example:
  cairn merge 5c0375b4 9a1e22f0 --cwd ~/src/console
`+surgeryFormats)
	f.register(fs, "claude")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return usageError("merge takes two SESSIONs")
	}
	fid, err := f.parse()
	if err != nil {
		return err
	}
	st, err := m.openStore(f.store)
	if err != nil {
		return err
	}
	defer st.Close()
	mat, err := surgery.Merge(ctx, st.surgery(), pos[0], pos[1], fid)
	if err != nil {
		return err
	}
	return m.emit(ctx, st, &f, []*cairn.Materialization{mat})
}
