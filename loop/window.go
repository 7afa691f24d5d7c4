package loop

import (
	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
)

// Occupancy returns how full the context of session, written at
// transcript, was at its last reply, against the window the client gives
// it ([Loop.Window]); nil if no reply is known. Pressure notes, advise and
// the status line all measure with it.
// The transcript is opened under the hooks' rule ([Loop.OpenTranscript]):
// a refused one is the error; one that cannot be read yet is no reply.
func (l *Loop) Occupancy(session, transcript string) (*cairn.Occupancy, error) {
	f, err := l.OpenTranscript(transcript)
	if f == nil {
		return nil, err // refused, or nothing written yet
	}
	defer f.Close()
	occ, err := claudecode.LastOccupancy(f, cairn.WindowSignals{})
	if err != nil || occ == nil {
		return nil, nil
	}
	occ.Window = l.Window(session, occ.Model, occ.Tokens)
	return occ, nil
}

// Window gathers what the client said about session's window (the
// status line's reports recorded in w, the model, the tokens seen, the
// client's environment, which hooks and the agent's commands inherit) and
// the person's context_window, and applies the one rule,
// [cairn.ClaudeCodeWindow]. The loop's Workspace may be nil (outside a
// workspace).
func (l *Loop) Window(session, model string, tokens int64) cairn.Window {
	s := cairn.WindowSignals{Model: model, Tokens: tokens, Getenv: l.Getenv}
	if w := l.Workspace; w != nil {
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
