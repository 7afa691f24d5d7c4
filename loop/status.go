package loop

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/workspace"
)

// A Status is what Claude Code hands its status line command after each
// message: the session, its transcript, the model, the window the client
// gives it and its own count of the last reply's context (nil when it
// does not say).
type Status struct {
	Session    string
	Transcript string
	Model      string
	WindowSize int64
	Usage      *cairn.Usage
}

// StatusLine is the line the person reads under the prompt: how far the
// context is on the way to where the client compacts it (read from the
// transcript's end, else the client's own count of the same reply; after
// a compaction no reply followed yet, an estimate marked "~"
// ([Loop.compactedFigure])), the
// command the person was shown since the last prompt
// ([Loop.ShowingLine]), the frame in progress (Owner's, from the store
// Open gives, when set) and the active engagement, joined by " · ";
// "cairn" when none is known. The window the client reports is recorded
// in the workspace, for the hooks and advise. The Workspace may be nil
// (outside one: the context's figure alone).
func (l *Loop) StatusLine(ctx context.Context, s Status) string {
	w := l.Workspace
	if w != nil {
		_ = w.SetReportedWindow(s.Session, s.Model, s.WindowSize)
	}
	var parts []string
	var occ *cairn.Occupancy
	if s.Transcript != "" {
		occ, _ = l.Occupancy(s.Session, s.Transcript)
	}
	if occ == nil && s.Usage != nil {
		tokens := s.Usage.Context()
		occ = &cairn.Occupancy{Tokens: tokens, Model: s.Model, Window: l.Window(s.Session, s.Model, tokens)}
	}
	switch {
	case occ != nil && occ.Tokens == 0 && s.Transcript != "":
		parts = append(parts, l.compactedFigure(s.Transcript, occ))
	case occ != nil:
		parts = append(parts, fmt.Sprintf("ctx %d%% (%dk/%dk)", occ.Percent(), occ.Tokens/1000, occ.Window.CompactAt/1000))
	}
	if w != nil {
		if line := l.ShowingLine(s.Session); line != "" {
			parts = append(parts, line)
		}
		if l.Open != nil {
			if st, err := l.Open(); err == nil {
				if f, err := cairn.ActiveFrame(ctx, st.Frames, l.Owner, l.Now()); err == nil {
					parts = append(parts, fmt.Sprintf("frame %s %s", f.ID, ClipLine(f.Title, 40)))
				}
			}
		}
		if e, _, err := workspace.ActiveEngagement(w.Root); err == nil && e != "" {
			parts = append(parts, "engagement "+e)
		}
	}
	if len(parts) == 0 {
		return "cairn"
	}
	return strings.Join(parts, " · ")
}

// compactedFigure is the context's figure after a compaction no reply
// followed: neither the transcript nor the client counts it yet, and what
// the last reply held is gone. It is the estimate of what the client
// sends next ([claudecode.AfterCompaction]: its overhead, the summary and
// what the transcript records after the boundary, the files it attaches
// again included), marked "~"; without one, a dash and why.
func (l *Loop) compactedFigure(transcript string, occ *cairn.Occupancy) string {
	if f, _ := l.OpenTranscript(transcript); f != nil {
		defer f.Close()
		if tokens, ok, err := claudecode.AfterCompaction(f); err == nil && ok && tokens > 0 {
			est := cairn.Occupancy{Tokens: tokens, Window: occ.Window}
			return fmt.Sprintf("ctx ~%d%% (~%dk/%dk)", est.Percent(), tokens/1000, occ.Window.CompactAt/1000)
		}
	}
	return "ctx — (compacted; counted at the next reply)"
}
