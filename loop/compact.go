package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/surgery"
	"github.com/cairn-dev/cairn/workspace"
)

// preCompact inscribes everything before the compaction drops it. A
// compaction the client triggers itself (trigger "auto") means the
// context ran out, seed 004's exhaustion: cairn also checkpoints on the
// current board, records the moment in the trace, and prepares a revived
// session beside the transcript, which the SessionStart hook after the
// compaction names; when finished frames hold [surgery.CollapseShare] of
// the context, that session has them collapsed to their results. A manual
// /compact only inscribes.
func (l *Loop) preCompact(ctx context.Context, in Event) error {
	last, err := l.Inscribe(ctx, in)
	if err != nil || in.Trigger != "auto" || last == nil {
		return err
	}
	st, err := l.Open()
	if err != nil {
		return err
	}
	session := last.SessionID
	tokens, held := "", int64(0)
	if f, _ := l.OpenTranscript(in.Transcript); f != nil {
		if occ, err := claudecode.LastOccupancy(f, cairn.WindowSignals{}); err == nil && occ != nil {
			tokens, held = fmt.Sprintf(" at %s tokens", Thousands(occ.Tokens)), occ.Tokens
		}
		f.Close()
	}
	resume, weight, err := l.revive(ctx, st, in, session, held)
	done := fmt.Sprintf("Context exhausted%s: the client compacts session %s after %d rounds", tokens, ShortID(session), last.Seq)
	switch {
	case err != nil: // the checkpoint still holds; it says why there is no revived session
		resume = ""
		done += "; not revived: " + errorText(err)
	case resume != "" && weight != nil:
		done += fmt.Sprintf("; revived within budget, finished frames collapsed: %s", resume)
	case resume != "":
		done += "; revived within budget: " + resume
	}
	if err := l.checkpointExit(done, "exhaustion (auto-compact)"); err != nil {
		return err
	}
	if resume == "" {
		return nil
	}
	kept := "with the recent rounds in full and the rest as an index"
	if weight != nil {
		kept = fmt.Sprintf("with the finished frames (%s: %d%% of the context) collapsed to their results, the recent rounds in full and the rest as an index", strings.Join(weight.Frames, ", "), weight.Percent())
	}
	return l.Workspace.SetRevived(in.Session, fmt.Sprintf("The context ran out and the client compacted it%s; cairn prepared a revived session within budget, %s: %s", tokens, kept, resume))
}

// A revival is the revived session prepared at one moment of a session:
// after the reply that left the client holding Held tokens.
type revival struct {
	Held   int64                 `json:"held"`
	Resume string                `json:"resume"`
	Weight *surgery.FramesWeight `json:"collapsed,omitempty"`
}

// revive returns the revived session of this moment: the one prepared
// since the session's last reply, when there is one (a pressure crossing
// and a compaction landing on one prompt give one command), else one
// prepared now ([Loop.prepareRevive]) and recorded in
// .cairn/context/<session>.revival.json.
func (l *Loop) revive(ctx context.Context, st *Stores, in Event, session string, held int64) (string, *surgery.FramesWeight, error) {
	path := ""
	if in.Session != "" && !strings.ContainsAny(in.Session, `/\.`) {
		path = filepath.Join(l.Workspace.Root, workspace.Dir, "context", in.Session+".revival.json")
	}
	if data, err := os.ReadFile(path); path != "" && held > 0 && err == nil {
		var r revival
		if json.Unmarshal(data, &r) == nil && r.Held == held && r.Resume != "" {
			return r.Resume, r.Weight, nil
		}
	}
	resume, weight, err := l.prepareRevive(ctx, st, in, session, held)
	if err != nil || path == "" || held <= 0 {
		return resume, weight, err
	}
	data, err := json.Marshal(revival{Held: held, Resume: resume, Weight: weight})
	if err != nil {
		return "", nil, err
	}
	return resume, weight, replaceFile(path, data)
}

// prepareRevive exports a revived session of session beside the hook's
// transcript and returns the command that resumes it: with the finished
// frames collapsed when they hold [surgery.CollapseShare] of held (what
// the client holds; 0: what it loads), then weight says what they hold;
// else revive's default.
func (l *Loop) prepareRevive(ctx context.Context, st *Stores, in Event, session string, held int64) (resume string, weight *surgery.FramesWeight, err error) {
	sst := st.Surgery()
	sst.LinesOnly = true
	frames, err := st.Frames.FindFrames(ctx)
	if err != nil {
		return "", nil, err
	}
	// A collapse that cannot be weighed or made leaves revive's default.
	// Weighing reads every round's blocks, which revive's fit, reading
	// the newest as far back as the budget reaches, does not: on the
	// 1 GB session (43,122 rounds, no finished frame) it was most of a
	// ten-second hook, so it waits for a finished frame of the session.
	var mat *cairn.Materialization
	worked, err := workedUnderFinished(ctx, st, session, frames)
	if err != nil {
		return "", nil, err
	}
	if worked {
		if w, err := surgery.FinishedWeight(ctx, sst, session, frames, held); err == nil && w.Pays() {
			if collapsed, err := surgery.ReviveFrames(ctx, sst, session, frames, cairn.FullFidelity); err == nil {
				mat, weight = collapsed, w
			}
		}
	}
	if mat == nil {
		if mat, err = surgery.Revive(ctx, sst, session, "", "", cairn.FullFidelity); err != nil {
			return "", nil, err
		}
	}
	resume, err = l.Export(ctx, st, mat, filepath.Dir(in.Transcript), in.Cwd)
	if err != nil {
		return "", nil, err
	}
	return resume, weight, nil
}

// workedUnderFinished reports whether a finished frame among frames was
// worked in session: pushed there, or tagging one of its rounds. Only
// then can a collapse ([surgery.FinishedWeight]) find anything.
func workedUnderFinished(ctx context.Context, st *Stores, session string, frames []*cairn.Frame) (bool, error) {
	for _, f := range frames {
		if !surgery.Finished(f) {
			continue
		}
		if f.SessionID == session {
			return true, nil
		}
		n, err := st.Rounds.CountRounds(ctx, cairn.RoundFilter{SessionID: session, FrameID: f.ID})
		if err != nil || n > 0 {
			return n > 0, err
		}
	}
	return false, nil
}

// revivedLine is the line a session start adds after an automatic
// compaction: the revived session cairn prepared, "" if none.
func revivedLine(w *workspace.Workspace, in Event) string {
	if in.Source != FromCompact || in.Session == "" {
		return ""
	}
	line, _ := w.Revived(in.Session)
	return line
}
