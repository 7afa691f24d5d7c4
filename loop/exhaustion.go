package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/assemble"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/workspace"
)

// ExhaustionEnv sets how many empty writes in a row mean the context ran
// out (default [cairn.DefaultExhaustionRun]; 0 turns the check off). Put
// it in .claude/settings.json's "env" to set it for a project.
const ExhaustionEnv = "CAIRN_EXHAUSTION_WRITES"

// ExhaustionRunOf is the run of empty writes [ExhaustionEnv] sets in
// getenv, for [Loop.ExhaustionRun]. Returns EINVALID for a value that is
// not a count.
func ExhaustionRunOf(getenv func(string) string) (int, error) {
	v := getenv(ExhaustionEnv)
	if v == "" {
		return cairn.DefaultExhaustionRun, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, cairn.Errorf(cairn.EINVALID, "$%s is %q: give a number of empty writes in a row, or 0 to turn the check off.", ExhaustionEnv, v)
	}
	return n, nil
}

// exhaustion is seed 004's error recovery. After a tool call (and at
// Stop) it reads the end of the transcript; when the last file-writing
// calls are a run of empty ones (Write without content: what an agent out
// of context sends), it inscribes the session, restarts the mission's
// phase from its boundary (a recovery phase whose outputs add the files
// the session wrote), writes the core and index to
// .cairn/context/<session>-recovery.xml, and tells the agent so in one
// line. Each run is handled once. It is silent otherwise and reads only
// the lines appended since the previous check ([writeTail]).
func (l *Loop) exhaustion(ctx context.Context, in Event) (Reply, error) {
	w := l.Workspace
	if l.ExhaustionRun == 0 || in.Transcript == "" {
		return Reply{}, nil
	}
	f, err := l.OpenTranscript(in.Transcript)
	if f == nil {
		return Reply{}, err // refused, or nothing written yet
	}
	tail := l.writeTail(in.Session)
	calls, from, end, err := claudecode.WritesSince(f, tail.Off)
	f.Close()
	if err != nil {
		return Reply{}, err
	}
	run, last := tail.Run, tail.Last
	if from != tail.Off { // the tail was read: counted from it
		run, last = 0, ""
	}
	for _, c := range calls {
		if c.Empty {
			run, last = run+1, c.ToolID
		} else {
			run, last = 0, ""
		}
	}
	if from != tail.Off || run != tail.Run || last != tail.Last || end-tail.Off >= writeTailLag {
		l.keepWriteTail(in.Session, writeTail{Off: end, Run: run, Last: last})
	}
	if run < l.ExhaustionRun {
		return Reply{}, nil
	}
	session := in.Session
	if session == "" || strings.ContainsAny(session, `/\.`) {
		session = "session"
	}
	marker := filepath.Join(w.Root, workspace.Dir, "context", session+".exhausted")
	if seen, _ := os.ReadFile(marker); strings.TrimSpace(string(seen)) == last {
		return Reply{}, nil // this run was handled
	}
	line, err := l.recoverExhausted(ctx, in, session, run)
	if err != nil {
		return Reply{}, err
	}
	if err := os.WriteFile(marker, []byte(last+"\n"), 0o644); err != nil {
		return Reply{}, err
	}
	return Reply{Agent: line}, nil
}

// recoverExhausted runs the phase recovery for a session whose context ran
// out and returns the line that tells the agent what happened.
func (l *Loop) recoverExhausted(ctx context.Context, in Event, session string, run int) (string, error) {
	w := l.Workspace
	if _, err := l.Inscribe(ctx, in); err != nil {
		return "", err
	}
	st, err := l.Open()
	if err != nil {
		return "", err
	}
	phase := "no mission phase to restart (cairn mission set, cairn phase next)"
	mis, err := st.Missions.FindMission(ctx)
	switch cairn.ErrorCode(err) {
	case "":
		outputs, err := sessionOutputs(ctx, st, in.Session, mis, w.Root)
		if err != nil {
			return "", err
		}
		if mis.Phase != nil {
			p, err := cairn.NextPhase(mis, "", "", outputs, cairn.PhaseRecovery)
			if err != nil {
				return "", err
			}
			if err := st.Missions.AddPhase(ctx, p); err != nil {
				return "", err
			}
			if l.SyncMission != nil {
				if err := l.SyncMission(ctx, st); err != nil {
					return "", err
				}
			}
			phase = fmt.Sprintf("phase %s restarted from its boundary (recovery, phase %d; %d files listed)", p.Name, p.Seq, len(p.Outputs))
		}
	case cairn.ENOTFOUND:
	default:
		return "", err
	}
	a := &assemble.Assembler{Frames: st.Frames, Missions: st.Missions, Rounds: st.Rounds, Sessions: st.Sessions, Counter: assemble.Estimate}
	req := assemble.Request{Owner: l.Owner, Budget: cairn.DefaultBudget(), Format: assemble.XML, Files: Index(w.Root)}
	req.Budget.Tokens, req.Budget.Chars = 0, 0
	out, err := a.Assemble(ctx, req)
	if err != nil {
		return "", err
	}
	rel := filepath.Join(workspace.Dir, "context", session+"-recovery.xml")
	if err := os.MkdirAll(filepath.Join(w.Root, workspace.Dir, "context"), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(w.Root, rel), []byte(out.Text), 0o644); err != nil {
		return "", err
	}
	return fmt.Sprintf("cairn: %d Write/Edit calls in a row carried no content, so your context is exhausted: %s; the core and the file index are in %s. Stop here and start a fresh session (/clear), which begins from them; read files on demand.",
		run, phase, filepath.ToSlash(rel)), nil
}

// sessionOutputs returns the files the session wrote or edited since the
// mission's phase began, relative to the workspace.
func sessionOutputs(ctx context.Context, st *Stores, sessionID string, mis *cairn.Mission, root string) ([]string, error) {
	if sessionID == "" {
		return nil, nil
	}
	f := cairn.RoundFilter{SessionID: sessionID, WithBlocks: true}
	if mis.Phase != nil {
		f.Since = mis.Phase.StartedAt
	}
	rounds, err := st.Rounds.FindRounds(ctx, f)
	if err != nil || len(rounds) == 0 {
		return nil, err
	}
	d, err := cairn.ResultsFromRounds(rounds, cairn.ResultsOptions{Root: root})
	if cairn.ErrorCode(err) == cairn.ENOTFOUND {
		return nil, nil
	}
	return d.Artifacts, err
}
