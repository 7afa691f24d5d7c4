package main

import (
	"context"

	"cairn"
	"cairn/surgery"
)

func (m *Main) runCompressEngagement(ctx context.Context, args []string) error {
	var f surgeryFlags
	fs := m.newFlagSet("compress-engagement", "[flags] SESSION ENGAGEMENT", `
Collapse the rounds tagged ENGAGEMENT (a finished workstream) to their index
lines; every other round stays in full. Tag rounds with "cairn tag".

Example:
  cairn compress-engagement 5c0375b4 console-work
`+surgeryFormats)
	f.register(fs, "claude")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return usageError("compress-engagement takes SESSION and ENGAGEMENT")
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
	mat, err := surgery.CompressEngagement(ctx, st.surgery(), pos[0], pos[1], fid)
	if err != nil {
		return err
	}
	return m.emit(ctx, st, &f, []*cairn.Materialization{mat})
}
