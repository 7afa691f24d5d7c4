package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/workspace"
)

// Inscribe inscribes the session's transcript and its sub-agents' from
// where the last import stopped, new rounds tagged with the active
// engagement and frame, and returns the session's last round (nil when
// nothing is written yet): as the import inscribed it when it inscribed
// one ([inscribe.FileReport.Last]: its tags, usage and blocks not read
// back), else as stored. It is a live import ([inscribe.Importer.Live]):
// the prefix already stored is checked by its windows, not read again.
func (l *Loop) Inscribe(ctx context.Context, ev Event) (*cairn.Round, error) {
	if ev.Harness == Opencode {
		log, err := l.opencodeLog(ctx, ev)
		if log == "" {
			return nil, err
		}
		ev.Transcript = log
	}
	if ev.Transcript == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "The hook input has no transcript_path.")
	}
	paths := []string{ev.Transcript}
	subagents := filepath.Join(strings.TrimSuffix(ev.Transcript, ".jsonl"), "subagents")
	if info, err := os.Stat(subagents); err == nil && info.IsDir() {
		paths = append(paths, subagents)
	}
	f, err := l.OpenTranscript(ev.Transcript)
	if f == nil {
		return nil, err // refused, or nothing written yet
	}
	f.Close() // the import opens it again, under the same rule
	st, err := l.Open()
	if err != nil {
		return nil, err
	}
	t, err := ActiveTags(ctx, l.Workspace, st.Frames, l.Owner, l.now())
	if err != nil {
		return nil, err
	}
	var format cairn.Transcript = claudecode.Format{}
	if gemini.IsSession(ev.Transcript, nil) {
		format = gemini.Format{}
	} else if ev.Harness == Pi {
		format = pi.Format{}
	} else if ev.Harness == Opencode {
		format = opencode.Format{}
	}
	im := &inscribe.Importer{Store: st.Import, Format: format, Live: true,
		Tag:             func(*cairn.Session) (string, string) { return t.EngagementID, t.FrameID },
		EngagementSince: t.EngagementSince, FrameSince: t.FrameSince, Folders: l.Folders, Redact: l.Redact}
	rep, err := im.Import(ctx, paths)
	if err != nil {
		return nil, err
	}
	for _, f := range rep.Files {
		switch f.Status {
		case inscribe.StatusFailed:
			return nil, fmt.Errorf("%s: %s", f.Path, f.Error)
		case inscribe.StatusSkipped:
			// A sub-agent's file that is a link out of the transcript
			// folders, a FIFO or a device: named, and the rest inscribed.
			if l.Warn != nil {
				fmt.Fprintf(l.Warn, "cairn: %s: %s\n", f.Path, f.Error)
			}
		}
	}
	if len(rep.Files) == 0 || rep.Files[0].SessionID == "" {
		return nil, nil
	}
	if last := rep.Files[0].Last; last != nil {
		return last, nil
	}
	last, err := st.Inscription.LastRound(ctx, rep.Files[0].SessionID)
	if cairn.ErrorCode(err) == cairn.ENOTFOUND {
		return nil, nil
	}
	return last, err
}

// OpenTranscript opens a hook's transcript_path under the rule every
// import applies ([inscribe.Open]): a regular file (a FIFO or a device is
// refused at once, never waited on) under the folders a client keeps
// transcripts in ([Loop.Folders]), symlinks resolved first, so hook input
// naming /etc/passwd, or a link to it, stores and exports nothing.
// Returns nil and no error when the file does not exist yet.
func (l *Loop) OpenTranscript(path string) (*os.File, error) {
	if len(l.Folders) == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "The hook's transcript_path %s is not read: no transcript folder is known ($HOME is not set). Set $CAIRN_TRANSCRIPT_DIRS to read it.", path)
	}
	f, err := inscribe.Open(path, l.Folders)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil // nothing written yet
	case errors.Is(err, inscribe.ErrRefused):
		reason := strings.TrimPrefix(strings.TrimPrefix(err.Error(), inscribe.ErrRefused.Error()), ": ")
		if strings.Contains(reason, "not under a transcript folder") {
			reason += ". Add its folder to $CAIRN_TRANSCRIPT_DIRS to read it"
		}
		return nil, cairn.Errorf(cairn.EINVALID, "The hook's transcript_path %s is not read: %s.", path, reason)
	}
	return f, err
}

// ActiveTags returns what new rounds are tagged with: the workspace's
// active engagement (none when w is nil) and owner's frame in progress at now (each "" if
// none), with the times they began: rounds from before are not theirs.
func ActiveTags(ctx context.Context, w *workspace.Workspace, frames cairn.FrameStore, owner string, now time.Time) (cairn.Inscription, error) {
	var t cairn.Inscription
	if w != nil {
		switch e, err := w.FindEngagement(); {
		case err != nil:
			return t, err
		case e != nil && e.Active:
			t.EngagementID, t.EngagementSince = e.ID, e.Started
		}
	}
	switch f, err := cairn.ActiveFrame(ctx, frames, owner, now); cairn.ErrorCode(err) {
	case "":
		t.FrameID, t.FrameSince = f.ID, f.StartedAt
	case cairn.ENOTFOUND:
	default:
		return t, err
	}
	return t, nil
}
