package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/loop"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/workspace"
)

// A piCompaction is what cairn's pi extension sends at
// session_before_compact: the session file, pi's working folder, the
// model's window, pi's compaction settings and the entry pi would keep
// from, and the ids and roles of the branch's last entries.
type piCompaction struct {
	SessionFile      string      `json:"session_file"`
	Cwd              string      `json:"cwd"`
	TokensBefore     int64       `json:"tokens_before"`
	Window           int64       `json:"window"`
	ReserveTokens    int64       `json:"reserve_tokens"`
	FirstKeptEntryID string      `json:"first_kept_entry_id"`
	Leaf             loop.PiLeaf `json:"leaf"`
	// Upto, for a compaction prepared ahead of pi's, is the entry the
	// session is compacted up to (pi then keeps the entries after it).
	Upto string `json:"upto"`
}

// A piInput is what the extension sends at any event: a compaction's
// fields, and the session's id, session_start's or session_shutdown's
// reason, whether what pi sends at its start still holds cairn's context
// ([loop.PiHook]), whether a compaction pi just made was one prepared
// ahead (which inscribed the session only up to its entry), the prompt, and
// the context as pi measures it (ctx.getContextUsage; tokens 0 when pi
// does not know) with its model.
type piInput struct {
	piCompaction
	SessionID string `json:"session_id"`
	Reason    string `json:"reason"`
	Resumed   bool   `json:"resumed"`
	Prepared  bool   `json:"prepared"`
	Prompt    string `json:"prompt"`
	Model     string `json:"model"`
	Tokens    int64  `json:"tokens"`
}

// A piCompactionReply is cairn's compaction: the summary pi puts first in
// the context and the entry pi keeps from; a prepared one's the entry it
// compacts up to instead, which the extension keeps the entries after.
type piCompactionReply struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"first_kept_entry_id"`
	Upto             string `json:"upto,omitempty"`
	Session          string `json:"session"`
	Tokens           int64  `json:"tokens"`
	Budget           int64  `json:"budget"`
}

// A piReply is what the extension does with a moment's [loop.Reply]: the
// agent's text becomes a message in pi's context, the person's a
// notification.
type piReply struct {
	Agent  string `json:"agent,omitempty"`
	Person string `json:"person,omitempty"`
}

// piHookEvents are the events "cairn hook --agent pi" takes.
const piHookEvents = "start, prompt, compact, prepare, end"

func isPiHookEvent(name string) bool {
	switch name {
	case "start", "prompt", "compact", "prepare", "end":
		return true
	}
	return false
}

// runPiHook runs "cairn hook --agent pi EVENT" for cairn's pi extension:
// start (session_start, and after a compaction), prompt
// (before_agent_start), end (session_shutdown) go through the live loop
// and print a piReply, nothing outside a workspace, start inscribing the
// session when [loop.PiHook.InscribesAtStart], in a workspace or not; compact
// (session_before_compact) inscribes the session and prints cairn's
// compaction of it (piCompactionReply), the session revived for pi within
// [loop.PiBudget] as markdown: continuation block, index, the last rounds
// in full; prepare (the extension's, ahead of pi's compaction, while the
// model answers) the same compaction of the session up to the entry it
// names, which the extension hands pi at session_before_compact if that
// entry is still where pi keeps from, so that pi waits for no process.
// Any failure exits non-zero and the extension goes on without cairn (pi
// compacting by itself).
func (m *Main) runPiHook(ctx context.Context, args []string) error {
	if len(args) != 1 || !isPiHookEvent(args[0]) {
		return &hookError{fmt.Errorf("hook --agent pi takes one EVENT: %s", piHookEvents)}
	}
	event := args[0]
	m.inHook = true
	defer func() {
		if m.hookStore != nil {
			m.hookStore.Close()
			m.hookStore = nil
		}
	}()
	if err := m.piHook(ctx, event); err != nil {
		return &hookError{fmt.Errorf("hook pi %s: %s", event, strings.Join(strings.Fields(errorText(err)), " "))}
	}
	return nil
}

func (m *Main) piHook(ctx context.Context, event string) error {
	var in piInput
	if err := json.NewDecoder(m.Stdin).Decode(&in); err != nil {
		return err
	}
	w, wd, err := m.hookWorkspace(in.Cwd)
	if err != nil {
		return err
	}
	if event == "compact" || event == "prepare" {
		return m.piCompact(ctx, &in, w, event == "prepare")
	}
	h := loop.PiHook{Event: event, Session: in.SessionID, File: in.SessionFile, Cwd: wd, Reason: in.Reason, Prompt: in.Prompt,
		Model: in.Model, Resumed: in.Resumed, Prepared: in.Prepared, Tokens: in.Tokens, Window: in.Window}
	if h.InscribesAtStart() {
		// The compaction, which needs it, reports a failure.
		if err := m.piInscribe(ctx, &in, w); err != nil && m.Stderr != nil {
			fmt.Fprintf(m.Stderr, "cairn: %s\n", strings.Join(strings.Fields(errorText(err)), " "))
		}
	}
	if w == nil {
		return nil // not a cairn project: stay out of the way
	}
	l, session, err := m.piLoop(&in, w)
	if err != nil {
		return err
	}
	h.Session = session
	h.Compaction = pi.CompactionSettings(pi.Home(m.Getenv, m.Getenv("HOME")), wd)
	r, err := l.Handle(ctx, loop.FromPi(h))
	if err != nil || r.Agent == "" && r.Person == "" {
		return err
	}
	return json.NewEncoder(m.Stdout).Encode(piReply(r))
}

// piLoop is the live loop for a pi event and the session it names
// ([loop.PiSession]); the transcripts it reads are pi's session folders'
// and the session file's.
func (m *Main) piLoop(in *piInput, w *workspace.Workspace) (*loop.Loop, string, error) {
	session, folder, err := loop.PiSession(in.SessionID, in.SessionFile)
	if err != nil {
		return nil, "", err
	}
	if w != nil {
		w.Session = m.sessionID(session)
	}
	l, err := m.liveLoop(w)
	if err != nil {
		return nil, "", err
	}
	l.Folders = append(l.Folders, pi.SessionsDirs(m.Getenv, m.Getenv("HOME"))...)
	if folder != "" {
		l.Folders = append(l.Folders, folder)
	}
	return l, session, nil
}

// piInscribe inscribes the session a pi event names
// ([loop.Loop.PiInscribe]).
func (m *Main) piInscribe(ctx context.Context, in *piInput, w *workspace.Workspace) error {
	l, id, err := m.piLoop(in, w)
	if err != nil {
		return err
	}
	return l.PiInscribe(ctx, id, in.SessionFile)
}

// piCompact prints cairn's compaction of the session ([loop.Loop.PiCompact]):
// prepared, of the session up to the entry in.Upto.
func (m *Main) piCompact(ctx context.Context, in *piInput, w *workspace.Workspace, prepared bool) error {
	if in.SessionFile == "" {
		return fmt.Errorf("no session_file")
	}
	if prepared && in.Upto == "" {
		return fmt.Errorf("prepare: no upto")
	}
	l, id, err := m.piLoop(in, w)
	if err != nil {
		return err
	}
	c := loop.PiCompact{Session: id, File: in.SessionFile, Window: in.Window, Reserve: in.ReserveTokens,
		FirstKept: in.FirstKeptEntryID, Leaf: in.Leaf}
	if prepared {
		c.Upto = in.Upto
	}
	r, err := l.PiCompact(ctx, c)
	if err != nil {
		return err
	}
	return json.NewEncoder(m.Stdout).Encode(piCompactionReply{Summary: r.Summary, FirstKeptEntryID: r.FirstKept, Upto: r.Upto,
		Session: r.Session, Tokens: r.Tokens, Budget: r.Budget})
}
