package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/loop"
	"github.com/cairn-dev/cairn/workspace"
)

func (m *Main) runRecover(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("recover", "[flags] SESSION", `
Rebuild where a session was and what it was doing, to pick it up after a
crash, a compaction, or from another agent. SESSION is a uuid, a unique
prefix of one, or the name of a trace (such as "default"). Any session
in the store is known, moved or not; its trace, when it has one, adds the
situations it went through and the checkpoints it wrote there.

It prints where the session was (folder, engagement, current frame, the
situation it last engaged), what it was doing (last prompt and answer, the
last rounds' index lines, what it changed (decisions recorded, todos
added, finished or blocked, frames pushed and popped, files written, as
its ends recorded them), the frames it pushed or planned, open frames and
todos, its compactions) and the commands that continue it.

Examples:
  cairn recover 5c0375b4
  cairn recover 5c0375b4 --rounds 10 --json
  cairn recover default`)
	sf.register(fs, true)
	n := fs.Int("rounds", 5, "how many of the last rounds to list")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageError("recover takes one SESSION")
	}
	w, err := m.openWorkspace(wsFlags{session: pos[0]})
	if err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
		return err
	}
	st, err := m.openStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	r, err := recoverSession(ctx, st, w, pos[0], *n)
	if err != nil {
		return err
	}
	if sf.json {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	r.print(m)
	return nil
}

// A recovery is what recover shows: the stored session, its trace, or
// both.
type recovery struct {
	Session    string         `json:"session"`
	Stored     *cairn.Session `json:"stored,omitempty"`
	Cwd        string         `json:"cwd,omitempty"`
	Engagement string         `json:"engagement,omitempty"` // the last round's engagement tag
	Frame      *cairn.Frame   `json:"frame,omitempty"`      // the last round's frame

	Trace *traceRecovery `json:"trace,omitempty"`

	LastPrompt  string         `json:"last_prompt,omitempty"`
	LastAnswer  string         `json:"last_answer,omitempty"`
	LastRounds  []string       `json:"last_rounds,omitempty"` // index lines
	OpenFrames  []*cairn.Frame `json:"open_frames,omitempty"`
	Frames      []*cairn.Frame `json:"frames,omitempty"` // the frames it pushed or planned
	OpenTodos   []*cairn.Todo  `json:"open_todos,omitempty"`
	Changed     *loop.Change   `json:"changed,omitempty"` // what its ends recorded it changed, and its frames
	Compactions []compaction   `json:"compactions,omitempty"`
	Continue    []string       `json:"continue"` // commands
}

// A traceRecovery is what the session's trace and the boards it wrote on
// say.
type traceRecovery struct {
	Moves   int               `json:"moves"`
	Path    []string          `json:"path"`
	Current string            `json:"current"`
	Arrived *cairn.Move       `json:"arrived,omitempty"`
	Visited []workspace.Visit `json:"visited"`
	Latest  *cairn.Checkpoint `json:"latest,omitempty"` // the newest on the current board, by anyone
	Index   string            `json:"index,omitempty"`
}

// A compaction is one place the client compacted the session.
type compaction struct {
	Round   int       `json:"round"`
	Time    time.Time `json:"time"`
	Summary string    `json:"summary"` // its first characters
}

// compactSummaryPrefix starts the user line Claude Code writes after a
// compaction boundary.
const compactSummaryPrefix = "This session is being continued from a previous conversation"

// recoverSession resolves ref against the store and the workspace's
// traces and gathers what is known. Returns ENOTFOUND if neither knows it.
func recoverSession(ctx context.Context, st *store, w *workspace.Workspace, ref string, n int) (*recovery, error) {
	r := &recovery{Session: ref}
	switch s, err := st.sessions.FindSessionByID(ctx, ref); cairn.ErrorCode(err) {
	case "":
		r.Stored, r.Session = s, s.ID
	case cairn.ENOTFOUND:
		if w == nil {
			return nil, cairn.Errorf(cairn.ENOTFOUND, "No stored session matches %q (cairn sessions lists them; cairn import inscribes new transcripts).", ref)
		}
		id, err := traceRef(w, ref)
		if err != nil {
			return nil, err
		}
		r.Session = id
	default:
		return nil, err
	}
	if w != nil {
		switch rec, err := w.Recover(r.Session); cairn.ErrorCode(err) {
		case "":
			r.Trace = &traceRecovery{Moves: len(rec.Trace.Moves), Path: rec.Path, Current: rec.Current, Arrived: rec.Arrived,
				Visited: rec.Visited, Index: rec.Index}
			if rec.Board != nil {
				r.Trace.Latest = rec.Board.Last()
			}
		case cairn.ENOTFOUND:
		default:
			return nil, err
		}
		if todos, err := w.ReadTodos(); err == nil {
			r.OpenTodos = workspace.OpenTodos(todos)
		}
		if rel, err := w.SessionChangesOf(r.Session); err != nil && cairn.ErrorCode(err) != cairn.EINVALID {
			return nil, err
		} else if rel != nil {
			r.Changed = &loop.Change{SessionChanges: *rel}
		}
	}
	frames, err := st.frames.FindFrames(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range frames {
		if f.Status == cairn.FrameInProgress || f.Status == cairn.FrameBlocked {
			r.OpenFrames = append(r.OpenFrames, f)
		}
		if f.SessionID == r.Session {
			r.Frames = append(r.Frames, f)
		}
	}
	if r.Changed != nil { // its ends recorded what it changed: its frames are part of it
		r.Changed = loop.ChangeOf(&r.Changed.SessionChanges, frames, r.Session)
	}
	if r.Stored != nil {
		if err := r.fromStore(ctx, st, frames, n); err != nil {
			return nil, err
		}
	}
	if r.Trace != nil {
		r.Continue = append(r.Continue, fmt.Sprintf("cairn engage %s --session %s   # back to where it was", r.Trace.Current, r.Session))
	}
	return r, nil
}

// fromStore adds what the stored rounds say.
func (r *recovery) fromStore(ctx context.Context, st *store, frames []*cairn.Frame, n int) error {
	s := r.Stored
	r.Cwd = s.Project
	rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.ID})
	if err != nil {
		return err
	}
	for _, round := range rounds[max(0, len(rounds)-n):] {
		r.LastRounds = append(r.LastRounds, export.IndexLine(round))
	}
	for i := len(rounds) - 1; i >= 0; i-- {
		if rounds[i].EngagementID != "" && r.Engagement == "" {
			r.Engagement = rounds[i].EngagementID
		}
		if rounds[i].FrameID != "" && r.Frame == nil {
			for _, f := range frames {
				if f.ID == rounds[i].FrameID {
					r.Frame = f
				}
			}
		}
	}
	for i := len(rounds) - 1; i >= 0 && (r.LastPrompt == "" || r.LastAnswer == ""); i-- {
		if rounds[i].Seq == 0 {
			break
		}
		full, err := st.rounds.FindRound(ctx, s.ID, rounds[i].Seq)
		if err != nil {
			return err
		}
		for _, b := range full.Blocks {
			switch {
			case b.Kind == cairn.UserText && !b.Sidechain && r.LastPrompt == "":
				r.LastPrompt = clipLine(b.Content, 300)
			case b.Kind == cairn.AssistantText && !b.Sidechain && strings.TrimSpace(b.Content) != "" && i == len(rounds)-1:
				r.LastAnswer = clipLine(b.Content, 300)
			}
		}
		if r.LastAnswer == "" && full.AgentPreview != "" {
			r.LastAnswer = clipLine(full.AgentPreview, 300)
		}
	}
	// Compactions: the summary the client writes after a boundary. Only
	// meta text can hold one, so only rounds whose blocks include it are
	// read.
	withBlocks, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.ID, WithBlocks: true})
	if err != nil {
		return err
	}
	for _, round := range withBlocks {
		for _, b := range round.Blocks {
			if (b.Kind == cairn.MetaText || b.Kind == cairn.UserText) && strings.HasPrefix(strings.TrimSpace(b.Content), compactSummaryPrefix) {
				r.Compactions = append(r.Compactions, compaction{Round: round.Seq, Time: b.Timestamp, Summary: clipLine(b.Content, 200)})
			}
		}
	}
	dir := s.Project
	if dir == "" {
		dir = "."
	}
	r.Continue = append(r.Continue,
		fmt.Sprintf("cd %s && claude --resume %s", cairn.ShellQuote(dir), s.ID),
		fmt.Sprintf("cairn revive %s   # a fresh session that starts oriented, within budget", s.ID))
	return nil
}

// traceRef returns the session whose trace ref names: its exact name or
// the only one starting with ref.
func traceRef(w *workspace.Workspace, ref string) (string, error) {
	paths, err := filepath.Glob(filepath.Join(w.Root, workspace.Dir, cairn.TracesDir, "*.md"))
	if err != nil {
		return "", err
	}
	var hits []string
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".md")
		if name == ref {
			return name, nil
		}
		if strings.HasPrefix(name, ref) {
			hits = append(hits, name)
		}
	}
	sort.Strings(hits)
	switch len(hits) {
	case 0:
		return "", cairn.Errorf(cairn.ENOTFOUND, "Session %s has no trace and is not in the store (cairn sessions lists stored sessions; cairn import inscribes new transcripts).", ref)
	case 1:
		return hits[0], nil
	}
	return "", cairn.Errorf(cairn.EINVALID, "Session prefix %q is ambiguous among traces: %s.", ref, strings.Join(hits, ", "))
}

func (r *recovery) print(m *Main) {
	out := m.Stdout
	fmt.Fprintf(out, "Session %s", r.Session)
	if s := r.Stored; s != nil {
		fmt.Fprintf(out, ": %d rounds, %s → %s", s.Rounds, s.StartedAt.UTC().Format(time.RFC3339), s.EndedAt.UTC().Format(time.RFC3339))
		if s.Title != "" {
			fmt.Fprintf(out, ", %q", s.Title)
		}
	} else {
		fmt.Fprint(out, ": not in the store (only its trace is known)")
	}
	fmt.Fprintln(out, ".")

	fmt.Fprintln(out, "\nWhere it was")
	if r.Cwd != "" {
		fmt.Fprintf(out, "  folder: %s\n", r.Cwd)
	}
	if r.Engagement != "" {
		fmt.Fprintf(out, "  engagement: %s\n", r.Engagement)
	}
	if r.Frame != nil {
		fmt.Fprintf(out, "  frame: %s %q (%s)\n", r.Frame.ID, r.Frame.Title, r.Frame.Status)
	}
	if t := r.Trace; t != nil {
		fmt.Fprintf(out, "  trace: %d moves\n", t.Moves)
		fmt.Fprintf(out, "  Path: %s\n", strings.Join(t.Path, " → "))
		fmt.Fprintf(out, "  Now at %s", t.Current)
		if t.Arrived != nil {
			fmt.Fprintf(out, " since %s", t.Arrived.Time.UTC().Format(time.RFC3339))
			if t.Arrived.Trigger != "" {
				fmt.Fprintf(out, " (%s)", t.Arrived.Trigger)
			}
		}
		fmt.Fprintln(out, ".")
		fmt.Fprintln(out, "  Last checkpoints of this session, by situation:")
		for _, v := range t.Visited {
			if v.Last == nil {
				fmt.Fprintf(out, "    %s: none\n", v.Situation)
				continue
			}
			fmt.Fprintf(out, "    %s (%s): done: %s; next: %s\n", v.Situation, v.Last.Time.UTC().Format(time.RFC3339),
				orNone(v.Last.Done), orNone(v.Last.Next))
		}
		if t.Latest != nil {
			fmt.Fprintf(out, "  Latest on %s (by %s): done: %s; next: %s\n", boardPath(t.Current), t.Latest.Session, orNone(t.Latest.Done), orNone(t.Latest.Next))
		}
	} else {
		fmt.Fprintln(out, "  trace: none (it never moved between situations)")
	}

	fmt.Fprintln(out, "\nWhat it was doing")
	if r.LastPrompt != "" {
		fmt.Fprintf(out, "  last prompt: %s\n", r.LastPrompt)
	}
	if r.LastAnswer != "" {
		fmt.Fprintf(out, "  last answer: %s\n", r.LastAnswer)
	}
	if len(r.LastRounds) > 0 {
		fmt.Fprintf(out, "  last %d rounds:\n", len(r.LastRounds))
		for _, l := range r.LastRounds {
			fmt.Fprintf(out, "    %s\n", l)
		}
	}
	if c := r.Changed; c != nil && c.String() != "" {
		fmt.Fprintf(out, "  what it changed: %s\n", c.String())
	}
	if len(r.Frames) > 0 {
		fmt.Fprintln(out, "  frames it pushed or planned:")
		for _, f := range r.Frames {
			fmt.Fprintf(out, "    %s %q (%s)\n", f.ID, f.Title, f.Status)
		}
	}
	for _, f := range r.OpenFrames {
		fmt.Fprintf(out, "  open frame: %s %q (%s)\n", f.ID, f.Title, f.Status)
	}
	for _, t := range r.OpenTodos {
		fmt.Fprintf(out, "  open todo: %s [%s] %s\n", t.ID, t.Status, t.Title)
	}
	for _, c := range r.Compactions {
		fmt.Fprintf(out, "  compacted in round %d (%s): %s\n", c.Round, c.Time.UTC().Format(time.RFC3339), c.Summary)
	}
	if r.Trace != nil && r.Trace.Index != "" {
		fmt.Fprintf(out, "\n=== %s index.md ===\n%s", r.Trace.Current, ensureNewline(r.Trace.Index))
	}

	fmt.Fprintln(out, "\nContinue it")
	for _, c := range r.Continue {
		fmt.Fprintf(out, "  %s\n", c)
	}
}
