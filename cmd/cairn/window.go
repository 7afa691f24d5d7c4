package main

import (
	"cairn"
	"cairn/claudecode"
	"cairn/workspace"
)

// occupancy returns how full the context of session, written at
// transcript, was at its last reply, against the window the client gives
// it ([Main.window]); nil if no reply is known. Pressure notes, advise and
// the status line all measure with it.
// The transcript is opened under the hooks' rule ([Main.openTranscript]):
// a refused one is the error; one that cannot be read yet is no reply.
func (m *Main) occupancy(w *workspace.Workspace, session, transcript string) (*cairn.Occupancy, error) {
	f, err := m.openTranscript(transcript)
	if f == nil {
		return nil, err // refused, or nothing written yet
	}
	defer f.Close()
	occ, err := claudecode.LastOccupancy(f, cairn.WindowSignals{})
	if err != nil || occ == nil {
		return nil, nil
	}
	occ.Window = m.window(w, session, occ.Model, occ.Tokens)
	return occ, nil
}

// window gathers what the client said about session's window (the
// status line's reports recorded in w, the model, the tokens seen, the
// client's environment, which hooks and the agent's commands inherit) and
// the person's context_window, and applies the one rule,
// [cairn.ClaudeCodeWindow]. w may be nil (outside a workspace).
func (m *Main) window(w *workspace.Workspace, session, model string, tokens int64) cairn.Window {
	s := cairn.WindowSignals{Model: model, Tokens: tokens, Getenv: m.Getenv}
	if w != nil {
		if cfg, err := w.ReadConfig(); err == nil {
			s.Configured = cfg.ContextWindow
		}
		if n, reported, err := w.ReportedWindow(session, model); err == nil && n > 0 {
			s.Reported = n
			if s.Model == "" {
				s.Model = reported
			}
		}
	}
	return cairn.ClaudeCodeWindow(s)
}
