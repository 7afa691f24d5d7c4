package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"cairn"
	"cairn/assemble"
	"cairn/claudecode"
	"cairn/workspace"
)

// exhaustionEnv sets how many empty writes in a row mean the context ran
// out (default [cairn.DefaultExhaustionRun]; 0 turns the check off). Put
// it in .claude/settings.json's "env" to set it for a project.
const exhaustionEnv = "CAIRN_EXHAUSTION_WRITES"

// hookExhaustion is seed 004's error recovery. After a tool call (and at
// Stop) it reads the end of the transcript; when the last file-writing
// calls are a run of empty ones (Write without content: what an agent out
// of context sends), it inscribes the session, restarts the mission's
// phase from its boundary (a recovery phase whose outputs add the files
// the session wrote), writes the core and index to
// .cairn/context/<session>-recovery.xml, and tells the agent so in one
// line. Each run is handled once. It is silent otherwise and costs one
// read of the transcript's last MiB.
func (m *Main) hookExhaustion(ctx context.Context, w *workspace.Workspace, in *claudecode.HookInput) error {
	limit := cairn.DefaultExhaustionRun
	if v := m.Getenv(exhaustionEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return cairn.Errorf(cairn.EINVALID, "$%s is %q: give a number of empty writes in a row, or 0 to turn the check off.", exhaustionEnv, v)
		}
		limit = n
	}
	if limit == 0 || in.TranscriptPath == "" {
		return nil
	}
	f, err := m.openTranscript(in.TranscriptPath)
	if f == nil {
		return err // refused, or nothing written yet
	}
	calls, err := claudecode.LastWrites(f)
	f.Close()
	if err != nil {
		return err
	}
	run := cairn.ExhaustionRun(calls)
	if run < limit {
		return nil
	}
	last := calls[len(calls)-1]
	session := in.SessionID
	if session == "" || strings.ContainsAny(session, `/\.`) {
		session = "session"
	}
	marker := filepath.Join(w.Root, workspace.Dir, "context", session+".exhausted")
	if seen, _ := os.ReadFile(marker); strings.TrimSpace(string(seen)) == last.ToolID {
		return nil // this run was handled
	}
	line, err := m.recoverExhausted(ctx, w, in, session, run)
	if err != nil {
		return err
	}
	if err := os.WriteFile(marker, []byte(last.ToolID+"\n"), 0o644); err != nil {
		return err
	}
	if in.Event == claudecode.Stop {
		return json.NewEncoder(m.Stdout).Encode(map[string]string{"systemMessage": line})
	}
	return claudecode.WriteAdditionalContext(m.Stdout, in.Event, line)
}

// recoverExhausted runs the phase recovery for a session whose context ran
// out and returns the line that tells the agent what happened.
func (m *Main) recoverExhausted(ctx context.Context, w *workspace.Workspace, in *claudecode.HookInput, session string, run int) (string, error) {
	if _, err := m.hookInscribe(ctx, w, in); err != nil {
		return "", err
	}
	st, err := m.openStore("")
	if err != nil {
		return "", err
	}
	defer st.Close()
	phase := "no mission phase to restart (cairn mission set, cairn phase next)"
	mis, err := st.missions.FindMission(ctx)
	switch cairn.ErrorCode(err) {
	case "":
		outputs, err := sessionOutputs(ctx, st, in.SessionID, mis, w.Root)
		if err != nil {
			return "", err
		}
		if mis.Phase != nil {
			p, err := cairn.NextPhase(mis, "", "", outputs, cairn.PhaseRecovery)
			if err != nil {
				return "", err
			}
			if err := st.missions.AddPhase(ctx, p); err != nil {
				return "", err
			}
			if _, err := m.syncMission(ctx, st, true); err != nil {
				return "", err
			}
			phase = fmt.Sprintf("phase %s restarted from its boundary (recovery, phase %d; %d files listed)", p.Name, p.Seq, len(p.Outputs))
		}
	case cairn.ENOTFOUND:
	default:
		return "", err
	}
	a := &assemble.Assembler{Frames: st.frames, Missions: st.missions, Rounds: st.rounds, Sessions: st.sessions, Counter: assemble.Estimate}
	req := assemble.Request{Owner: m.Getenv("CAIRN_AGENT"), Budget: cairn.DefaultBudget(), Format: assemble.XML, Files: hookIndex(w.Root)}
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
func sessionOutputs(ctx context.Context, st *store, sessionID string, mis *cairn.Mission, root string) ([]string, error) {
	if sessionID == "" {
		return nil, nil
	}
	f := cairn.RoundFilter{SessionID: sessionID, WithBlocks: true}
	if mis.Phase != nil {
		f.Since = mis.Phase.StartedAt
	}
	rounds, err := st.rounds.FindRounds(ctx, f)
	if err != nil || len(rounds) == 0 {
		return nil, err
	}
	d, err := cairn.ResultsFromRounds(rounds, cairn.ResultsOptions{Root: root})
	if cairn.ErrorCode(err) == cairn.ENOTFOUND {
		return nil, nil
	}
	return d.Artifacts, err
}
