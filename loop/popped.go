package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/surgery"
	"github.com/cairn-dev/cairn/workspace"
)

// popped is a turn's end, or the next prompt, after the agent popped
// frames of the session (issue 42, 2a: the pop is the first moment a
// finished frame may collapse; a client that writes the turn only after
// its Stop hook leaves it to the next prompt): when the session's finished frames hold
// [surgery.CollapseShare] of what the client holds, it prepares the
// revived session with them collapsed to their results, their steps too
// when pushed and popped inside one prompt's work ([Loop.revive], the
// one a pressure crossing or a compaction at this reply names too), and
// shows the person the command that resumes it, once: only the person
// can switch, and only once the turn has ended. The agent is told the
// same command (at a turn's end, by its next prompt): one moment, one
// session, which cairn pop announced without a command of its own. Frames popped before the
// last weighing are not weighed again (.cairn/context/<session>.popped).
func (l *Loop) popped(ctx context.Context, ev Event, session string) (Reply, error) {
	mark := l.poppedPath(ev.Session)
	if mark == "" {
		return Reply{}, nil
	}
	st, err := l.Open()
	if err != nil {
		return Reply{}, err
	}
	frames, err := st.Frames.FindFrames(ctx)
	if err != nil {
		return Reply{}, err
	}
	var since time.Time
	if data, err := os.ReadFile(mark); err == nil {
		since, _ = time.Parse(time.RFC3339Nano, strings.TrimSpace(string(data)))
	}
	latest := since
	for _, f := range frames {
		if f.SessionID == ev.Session && surgery.Finished(f) && f.EndedAt.After(latest) {
			latest = f.EndedAt
		}
	}
	if !latest.After(since) {
		return Reply{}, nil
	}
	if ev.Kind == TurnEnd && !l.awaitTurn(ev.Transcript) {
		return Reply{}, nil // the client writes the turn after its hook: the next prompt weighs it
	}
	// The turn as the client has written it by now: its end's inscription
	// may have read it before its last reply.
	if _, err := l.Inscribe(ctx, ev); err != nil {
		return Reply{}, err
	}
	if err := replaceFile(mark, []byte(latest.UTC().Format(time.RFC3339Nano)+"\n")); err != nil {
		return Reply{}, err
	}
	weighed, occ, err := l.Collapsible(ctx, st, frames, ev, session)
	if err != nil || weighed == nil {
		return Reply{}, err
	}
	resume, weight, err := l.revive(ctx, st, ev, session, occ.Tokens)
	if err != nil || resume == "" || weight == nil {
		return Reply{}, nil
	}
	held := fmt.Sprintf("the finished frames (%s) hold %d%% of the context (~%s of %s tokens, in %s)",
		strings.Join(weight.Frames, ", "), weight.Percent(), Thousands(weight.Tokens), Thousands(occ.Tokens), weight.Where())
	text := fmt.Sprintf("cairn: %s. A revived session is ready with them collapsed to their results (they stay readable: cairn inject %s REF). Only you can switch to it: %s", held, session, resume)
	person := l.personOnce(ev.Session, resume, text)
	if person == "" {
		return Reply{}, nil
	}
	agent := fmt.Sprintf("cairn: after your pop, %s: cairn prepared a revived session with them collapsed to their results and showed the person the command that resumes it: %s. Only the person can switch to it; there is nothing for you to run.", held, resume)
	if ev.Kind != Prompt {
		// A turn's end has no way to the agent: its next prompt tells it.
		_ = replaceFile(l.personFile(ev.Session, ".tell"), []byte(agent+"\n"))
		agent = ""
	}
	return Reply{Agent: agent, Person: person}, nil
}

// PopNote is the line a pop the agent runs ends with when the session's
// finished frames weigh enough to collapse ([Loop.Collapsible], the
// turn's end's decision): the turn's end prepares the revived session
// and shows the person, and the agent, its one command (issue 42: the
// pop offered compress-frames while the person was shown another
// session); "" when they do not or ev names no transcript.
func (l *Loop) PopNote(ctx context.Context, ev Event) string {
	if ev.Transcript == "" {
		return ""
	}
	st, err := l.Open()
	if err != nil {
		return ""
	}
	frames, err := st.Frames.FindFrames(ctx)
	if err != nil {
		return ""
	}
	w, _, err := l.Collapsible(ctx, st, frames, ev, ev.Session)
	if err != nil || w == nil {
		return ""
	}
	return fmt.Sprintf("The finished frames (%s) hold %d%% of the context (~%s of %s tokens, in %s): when this turn ends, cairn prepares a revived session of %s with them collapsed to their results and shows the person the command that resumes it (you are told it too, at the next prompt). Only the person can switch to it; there is nothing for you to run.\n",
		strings.Join(w.Frames, ", "), w.Percent(), Thousands(w.Tokens), Thousands(w.Held), w.Where(), ev.Session)
}

// told returns the note a turn's end left for session's next prompt
// ([Loop.popped]) and removes it; "" when none.
func (l *Loop) told(session string) string {
	path := l.personFile(session, ".tell")
	if path == "" {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	_ = os.Remove(path)
	return strings.TrimSpace(string(data))
}

// Collapsible is the one decision whether session's finished frames are
// worth collapsing now, which the turn's end after a pop and the pop
// itself make: what they hold ([surgery.FinishedWeight]) against what the
// client holds by the end of ev's transcript, when that reaches
// [surgery.CollapseShare]; at a tool call (a pop the agent runs), as the
// turn goes on ([surgery.FinishedWeightMidTurn]). It returns nil when
// they hold less, or when they cannot be weighed (no reply read yet, a
// session not stored), which leaves the pressure note and the compaction
// to act.
func (l *Loop) Collapsible(ctx context.Context, st *Stores, frames []*cairn.Frame, ev Event, session string) (*surgery.FramesWeight, *cairn.Occupancy, error) {
	occ, err := l.Occupancy(ev.Session, ev.Transcript)
	if err != nil || occ == nil || occ.Tokens <= 0 {
		return nil, nil, err
	}
	weigh := surgery.FinishedWeight
	if ev.Kind == ToolCall {
		weigh = surgery.FinishedWeightMidTurn // the agent's call in progress: the turn goes on
	}
	w, err := weigh(ctx, st.Surgery(), session, frames, occ.Tokens)
	if err != nil || !w.Pays() {
		return nil, nil, nil
	}
	return w, occ, nil
}

// SessionEvent inscribes session's transcript from where its last import
// stopped, as a hook does ([Loop.Inscribe]), and returns the event that
// names it, a tool call in progress: what a command the agent runs
// mid-prompt (cairn pop) does to see the round in progress, which no hook
// has stored yet. The transcript
// is the one the store last read the session from, else a file named by
// the session under a transcript folder or one of its project folders
// (Claude Code's, for a session no hook has inscribed yet). A session
// found nowhere, or read from a harness the loop does not inscribe, is
// the zero Event and no error.
func (l *Loop) SessionEvent(ctx context.Context, session string) (Event, error) {
	if session == "" || session == cairn.DefaultSession || strings.ContainsAny(session, `/\.*?[`) {
		return Event{}, nil
	}
	st, err := l.Open()
	if err != nil {
		return Event{}, err
	}
	ev := Event{Kind: ToolCall, Harness: ClaudeCode, Session: session, Cwd: l.Wd}
	switch src, err := st.Inscription.FindSource(ctx, session); {
	case err == nil && src.Path != "":
		if src.Agent != "" && src.Agent != ClaudeCode && src.Agent != Gemini && src.Agent != Pi {
			return Event{}, nil
		}
		ev.Transcript = src.Path
		if src.Agent != "" {
			ev.Harness = src.Agent
		}
	case err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND:
		return Event{}, err
	default:
		for _, dir := range l.Folders {
			if found, _ := filepath.Glob(filepath.Join(dir, "*", session+".jsonl")); len(found) > 0 {
				ev.Transcript = found[0]
				break
			}
			if p := filepath.Join(dir, session+".jsonl"); fileExists(p) {
				ev.Transcript = p
				break
			}
		}
	}
	if ev.Transcript == "" {
		return Event{}, nil
	}
	settle(ev.Transcript)
	if _, err := l.Inscribe(ctx, ev); err != nil {
		return Event{}, err
	}
	return ev, nil
}

// settleQuiet is how long a transcript must stay the same size before a
// command the agent runs reads it, at most turnWait in all: 2.1.330 was
// seen to write a tool's result line after it had sent the result and
// run the next call (1 run of 6 popped before the Write's result was in
// the file).
const settleQuiet = 150 * time.Millisecond

// settle waits until path has not grown for settleQuiet, at most turnWait.
func settle(path string) {
	last := int64(-1)
	for start, since := time.Now(), time.Now(); time.Since(start) < turnWait; time.Sleep(turnPoll) {
		info, err := os.Stat(path)
		if err != nil {
			return
		}
		if info.Size() != last {
			last, since = info.Size(), time.Now()
		} else if time.Since(since) >= settleQuiet {
			return
		}
	}
}

// fileExists reports whether path names a regular file.
func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// turnWait bounds how long a turn's end waits for the client to write
// the turn's last reply, and turnPoll how often it looks.
const (
	turnWait = time.Second
	turnPoll = 20 * time.Millisecond
)

// awaitTurn waits, at most turnWait, until the transcript ends with the
// turn's last reply ([claudecode.TurnEnded]) and reports whether it does:
// Claude Code 2.1.330 was seen to run its Stop hook before writing it,
// and 2.1.197 in print mode to write it only after the hook returns.
func (l *Loop) awaitTurn(transcript string) bool {
	for start := time.Now(); ; time.Sleep(turnPoll) {
		f, err := l.OpenTranscript(transcript)
		if f == nil || err != nil {
			return true
		}
		ended, err := claudecode.TurnEnded(f)
		f.Close()
		if ended || err != nil {
			return true
		}
		if time.Since(start) > turnWait {
			return false
		}
	}
}

// poppedPath is where the latest pop a turn's end weighed is kept:
// .cairn/context/<session>.popped; "" for an id that names no file.
func (l *Loop) poppedPath(session string) string {
	if session == "" || strings.ContainsAny(session, `/\.`) || l.Workspace == nil {
		return ""
	}
	return filepath.Join(l.Workspace.Root, workspace.Dir, "context", session+".popped")
}

// joinReplies is the replies of one moment in one: the client reads one
// answer per hook.
func joinReplies(rs ...Reply) Reply {
	var agent, person []string
	for _, r := range rs {
		if r.Agent != "" {
			agent = append(agent, r.Agent)
		}
		if r.Person != "" {
			person = append(person, r.Person)
		}
	}
	return Reply{Agent: strings.Join(agent, "\n"), Person: strings.Join(person, "\n")}
}
