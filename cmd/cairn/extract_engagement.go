package main

import (
	"context"

	"cairn"
	"cairn/surgery"
)

func (m *Main) runExtractEngagement(ctx context.Context, args []string) error {
	var f surgeryFlags
	fs := m.newFlagSet("extract-engagement", "[flags] SESSION ENGAGEMENT", `
Write only the rounds tagged ENGAGEMENT, in full: a session to hand one
workstream to a dedicated agent.

Example:
  cairn extract-engagement 5c0375b4 console-work
`+surgeryFormats)
	f.register(fs, "claude")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return usageError("extract-engagement takes SESSION and ENGAGEMENT")
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
	mat, err := surgery.ExtractEngagement(ctx, st.surgery(), pos[0], pos[1], fid)
	if err != nil {
		return err
	}
	return m.emit(ctx, st, &f, []*cairn.Materialization{mat})
}
