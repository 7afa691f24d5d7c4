package main

import (
	"context"
	"fmt"

	"cairn"
	"cairn/surgery"
)

func (m *Main) runPop(ctx context.Context, args []string) error {
	var ff frameFlags
	fs := m.newFlagSet("pop", "[flags] [FRAME]", `
Finish a frame (default: your current frame) and return to its parent.
Its results are the handoff: what the parent and sibling frames will see
instead of the frame's whole history, so say what was accomplished, what
was produced and what was decided.

A frame ends completed (results required), failed (say why) or blocked
(say on what; "cairn activate" resumes it). When the frame's rounds are in
this session, pop says how much context collapsing them to the results
would free, and the command that does it (cairn compress-frames).

Examples:
  cairn pop --results "JWT auth with refresh tokens; User model, middleware, routes" \
      --compact "JWT auth done" --artifact src/auth/jwt.go --decision "HS256: one service"
  cairn pop --status blocked --results "needs the staging DB password from ops"
  cairn pop crud-search --status failed --results "FTS5 is unavailable on the hosted DB"`)
	ff.register(m, fs)
	status := fs.String("status", "completed", "completed, failed or blocked")
	results := fs.String("results", "", "what was accomplished (required to complete)")
	compact := fs.String("compact", "", "a dense version of the results for other frames' context")
	var artifacts, decisions listFlag
	fs.Var(&artifacts, "artifact", "a file or resource produced (repeat)")
	fs.Var(&decisions, "decision", "a key decision (repeat)")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return usageError("pop takes at most one FRAME")
	}
	st, err := m.openStore(ff.store)
	if err != nil {
		return err
	}
	defer st.Close()
	id, err := st.frameOrCurrent(ctx, fs.Arg(0), ff.owner)
	if err != nil {
		return err
	}
	c, err := st.stack().Pop(ctx, id, cairn.FrameResults{Status: cairn.FrameStatus(*status), Results: *results,
		ResultsCompacted: *compact, Artifacts: artifacts, Decisions: decisions})
	if err != nil {
		return err
	}
	if err := m.printChange(ff.json, "popped", c); err != nil || ff.json {
		return err
	}
	if f, err := st.frames.FindFrameByID(ctx, id); err == nil && surgery.Finished(f) {
		if col, err := surgery.CollapseOf(ctx, st.surgery(), m.sessionID(""), id); err == nil && col != nil {
			fmt.Fprintln(m.Stdout, col)
		}
	}
	return nil
}
