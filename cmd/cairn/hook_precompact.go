package main

import (
	"context"
	"fmt"
	"path/filepath"

	"cairn"
	"cairn/claudecode"
	"cairn/surgery"
	"cairn/workspace"
)

// hookPreCompact inscribes everything before the compaction drops it. A
// compaction the client triggers itself (trigger "auto") means the
// context ran out, seed 004's exhaustion: cairn also checkpoints on the
// current board, records the moment in the trace, and prepares a revived
// session beside the transcript, which the SessionStart hook after the
// compaction names. A manual /compact only inscribes.
func (m *Main) hookPreCompact(ctx context.Context, w *workspace.Workspace, in *claudecode.HookInput) error {
	last, err := m.hookInscribe(ctx, w, in)
	if err != nil || in.Trigger != "auto" || last == nil {
		return err
	}
	st, err := m.openStore("")
	if err != nil {
		return err
	}
	defer st.Close()
	session := last.SessionID
	tokens := ""
	if f, _ := m.openTranscript(in.TranscriptPath); f != nil {
		if occ, err := claudecode.LastOccupancy(f, cairn.WindowSignals{}); err == nil && occ != nil {
			tokens = fmt.Sprintf(" at %s tokens", thousands(occ.Tokens))
		}
		f.Close()
	}
	resume := ""
	sst := st.surgery()
	sst.LinesOnly = true
	mat, err := surgery.Revive(ctx, sst, session, "", "", cairn.FullFidelity)
	if err == nil {
		f := &surgeryFlags{out: filepath.Dir(in.TranscriptPath), cwd: in.Cwd}
		var e *exported
		if e, err = m.exportClaude(ctx, st, f, mat); err == nil {
			resume = e.Resume
		}
	}
	done := fmt.Sprintf("Context exhausted%s: the client compacts session %s after %d rounds", tokens, shortID(session), last.Seq)
	switch {
	case err != nil: // the checkpoint still holds; it says why there is no revived session
		resume = ""
		done += "; not revived: " + errorText(err)
	case resume != "":
		done += "; revived within budget: " + resume
	}
	if err := m.checkpointExit(w, done, "exhaustion (auto-compact)"); err != nil {
		return err
	}
	if resume == "" {
		return nil
	}
	return w.SetRevived(in.SessionID, fmt.Sprintf("The context ran out and the client compacted it%s; cairn prepared a revived session within budget, with the recent rounds in full and the rest as an index: %s", tokens, resume))
}

// revivedLine is the line the SessionStart hook adds after an automatic
// compaction: the revived session cairn prepared, "" if none.
func revivedLine(w *workspace.Workspace, in *claudecode.HookInput) string {
	if in.Source != "compact" || in.SessionID == "" {
		return ""
	}
	line, _ := w.Revived(in.SessionID)
	return line
}
