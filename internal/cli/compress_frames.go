package cli

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

func (m *Main) runCompressFrames(ctx context.Context, args []string) error {
	var f surgeryFlags
	fs := m.newFlagSet("compress-frames", "[flags] SESSION", `
Shape a session the way the frame stack says its context should be: each
finished frame (popped completed or failed) stands as one entry, its
title, results and compaction, in place of the rounds worked under it
(they stay readable: cairn inject SESSION ROUND); the rounds of frames
still open, the current one among them, stay in full; rounds outside any
frame keep the recent quarter of the session in full and the rest as
index lines, as revive does. The last round always stays in full.

Rounds carry the frame that was in progress when the hooks inscribed
them; cairn pop says when a frame it finished can be collapsed so, and
how much context that frees. "cairn revive --frames" does the same.

Examples:
  cairn compress-frames 5c0375b4
  cairn compress-frames 5c0375b4 --format markdown
`+surgeryFormats)
	f.register(fs, "claude")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageError("compress-frames takes one SESSION")
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
	mat, err := m.compressFrames(ctx, st, f.format, pos[0], fid)
	if err != nil {
		return err
	}
	return m.emit(ctx, st, &f, []*cairn.Materialization{mat})
}

// compressFrames runs compress-frames on the store's frames.
func (m *Main) compressFrames(ctx context.Context, st *store, format, session string, fid cairn.Fidelity) (*cairn.Materialization, error) {
	frames, err := st.frames.FindFrames(ctx)
	if err != nil {
		return nil, err
	}
	sst := st.surgery()
	sst.LinesOnly = format == "claude"
	return surgery.CompressFrames(ctx, sst, session, frames, fid)
}
