package main

import (
	"context"

	"cairn"
	"cairn/surgery"
)

func (m *Main) runCompressBefore(ctx context.Context, args []string) error {
	var f surgeryFlags
	fs := m.newFlagSet("compress-before", "[flags] SESSION T", `
Replace the rounds before T by one index table (a line per round) and keep
the rounds at or after T in full. T is a round number (12) or a time
(2026-03-19T10:23Z). The store is only read; --format claude writes a new
session and prints the command that resumes it.

Examples:
  cairn compress-before 5c0375b4 12
  cairn compress-before --format markdown 5c0375b4 2026-03-19T10:23Z | less
`+surgeryFormats)
	f.register(fs, "claude")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return usageError("compress-before takes SESSION and T")
	}
	fid, err := f.parse()
	if err != nil {
		return err
	}
	at, err := surgery.ParsePoint(pos[1])
	if err != nil {
		return err
	}
	st, err := m.openStore(f.store)
	if err != nil {
		return err
	}
	defer st.Close()
	mat, err := surgery.CompressBefore(ctx, st.surgery(), pos[0], at, fid)
	if err != nil {
		return err
	}
	return m.emit(ctx, st, &f, []*cairn.Materialization{mat})
}
