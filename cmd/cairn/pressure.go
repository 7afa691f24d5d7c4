package main

import (
	"context"
	"fmt"
	"strings"

	"cairn"
	"cairn/claudecode"
	"cairn/surgery"
	"cairn/workspace"
)

// hookPressure is the UserPromptSubmit hook's check of the context the
// client holds: when it has crossed a threshold of .cairn/config since the
// last prompt, it returns a short note for the agent (the percentage, what
// advise recommends and the command); else "". Reading the occupancy costs
// a read of the transcript's end; the transcript is inscribed and advise
// run only on a crossing.
func (m *Main) hookPressure(ctx context.Context, w *workspace.Workspace, in *claudecode.HookInput) (string, error) {
	cfg, err := w.ReadConfig()
	if err != nil {
		return "", err
	}
	if len(cfg.Pressure) == 0 || in.TranscriptPath == "" || in.SessionID == "" {
		return "", nil
	}
	occ, err := m.occupancy(w, in.SessionID, in.TranscriptPath)
	if err != nil {
		return "", err // the transcript is refused
	}
	if occ == nil {
		return "", nil // no reply so far
	}
	crossed, err := w.Crossed(in.SessionID, occ.Percent(), cfg.Pressure)
	if err != nil || crossed == 0 {
		return "", err
	}
	// Advise reads the stored session: bring it up to the transcript's end
	// first. This is the one prompt of a crossing that waits for it.
	if _, err := m.hookInscribe(ctx, w, in); err != nil {
		return "", err
	}
	var advice *surgery.Advice
	if st, err := m.openStore(""); err == nil {
		advice, _ = surgery.AdviseAt(ctx, st.surgery(), in.SessionID, occ)
		st.Close()
	}
	return pressureNote(occ, crossed, in.SessionID, advice), nil
}

// pressureNote is what the agent reads when its context crosses a
// threshold.
func pressureNote(occ *cairn.Occupancy, crossed int, session string, a *surgery.Advice) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cairn: your context is %d%% of the way to where the client compacts it (%s of %s tokens; window %s; past the %d%% mark). At 100%% the client compacts it, lossily.",
		occ.Percent(), thousands(occ.Tokens), thousands(occ.Window.CompactAt), thousands(occ.Window.Size), crossed)
	op, command, reason := "revive", "cairn revive "+session, "a fresh session from this one, compressed, within budget"
	if a != nil && a.Command != "" {
		op, command, reason = a.Operation, a.Command, a.Reason
	}
	fmt.Fprintf(&b, "\ncairn advise recommends %s: %s\nCommand: %s (it prints the claude --resume line for the new session).", op, strings.TrimSpace(reason), command)
	b.WriteString("\nBefore that: pop finished frames with their results (cairn pop --results …) and checkpoint what is next (cairn checkpoint …), so the next session starts oriented.")
	return b.String()
}

// thousands writes n with comma separators: 144,012.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
