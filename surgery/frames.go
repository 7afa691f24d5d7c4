package surgery

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
)

// Finished reports whether a frame's rounds may collapse into one entry:
// it was popped completed or failed, so its results say what it did.
func Finished(f *cairn.Frame) bool {
	return f.Status == cairn.FrameCompleted || f.Status == cairn.FrameFailed
}

// CompressFrames materializes a session the way seed 003 shapes the active
// context: each finished (completed or failed) frame's rounds are replaced
// by one entry holding its title, results and compaction, with the
// rounds' numbers (still injectable); rounds of frames still open (the
// current one among them) stay in full; rounds outside any frame follow
// revive's rule: the recent quarter of the session by size in full, the
// rest as index lines. frames are the store's frames. A frame the session
// pushed and popped inside rounds it did not fill (the natural pattern:
// pushed when asked, popped when done, inside one prompt's work) stands
// for the steps worked between its push and its pop ([FrameSteps]),
// which rounds in full leave out. The last round always stays in full,
// with its last step, so the resumed session ends where the original
// did. Returns ENOTFOUND if the session does not exist and EINVALID if no
// round or step was worked under a finished frame.
func CompressFrames(ctx context.Context, st Store, session string, frames []*cairn.Frame, f cairn.Fidelity) (*cairn.Materialization, error) {
	sz, err := st.measure(ctx, session)
	if err != nil {
		return nil, err
	}
	s, rounds := sz.session, sz.rounds
	byID := make(map[string]*cairn.Frame, len(frames))
	for _, fr := range frames {
		byID[fr.ID] = fr
	}
	spans := finishedSpans(frames, s.ID)
	after := lastCompaction(rounds)
	// Each round's steps under a finished frame, and what it holds
	// without them, which the recent quarter is measured by.
	type split struct {
		steps []*cairn.Step
		under []*cairn.Frame
	}
	splits := make([]split, len(rounds))
	for i, r := range rounds {
		if fr := byID[r.FrameID]; i <= after || len(spans) == 0 || fr != nil && Finished(fr) && i < len(rounds)-1 {
			continue
		}
		steps, under := FrameSteps(r, spans, i == len(rounds)-1)
		splits[i] = split{steps, under}
		for j, u := range under {
			if u != nil {
				sz.size[i] -= stepSize(steps[j])
				sz.total -= stepSize(steps[j])
			}
		}
	}
	recent, _ := sz.recent()
	m := newMaterialization(cairn.OpCompressFrames, f, []*cairn.Session{s}, s.ID)
	collapsed := map[string]*cairn.CollapsedFrame{}
	collapse := func(fr *cairn.Frame) *cairn.CollapsedFrame {
		c := collapsed[fr.ID]
		if c == nil {
			c = &cairn.CollapsedFrame{Frame: fr, SessionID: s.ID}
			collapsed[fr.ID] = c
			m.Collapsed = append(m.Collapsed, c)
		}
		return c
	}
	for i, r := range rounds {
		fr := byID[r.FrameID]
		last := i == len(rounds)-1
		if fr != nil && Finished(fr) && !last {
			c := collapse(fr)
			c.Rounds = append(c.Rounds, r.Seq)
			c.Tokens += sz.size[i]
			continue
		}
		p := &cairn.Piece{Round: r, Full: last || fr != nil || i >= recent}
		steps, under := splits[i].steps, splits[i].under
		if !slices.ContainsFunc(under, func(u *cairn.Frame) bool { return u != nil }) {
			m.Pieces = append(m.Pieces, p)
			continue
		}
		if slices.IndexFunc(under, func(u *cairn.Frame) bool { return u != under[0] }) < 0 && !last {
			c := collapse(under[0]) // the whole round was the frame's
			c.Rounds = append(c.Rounds, r.Seq)
			for _, s := range steps {
				c.Tokens += stepSize(s)
			}
			continue
		}
		var kept []*cairn.Step
		for j, u := range under {
			if u == nil {
				kept = append(kept, steps[j])
			}
		}
		keep := keptSteps(r, steps, kept)
		if len(keep) == 0 {
			m.Pieces = append(m.Pieces, p) // nothing of it would stay: no collapse
			continue
		}
		for j := 0; j < len(steps); {
			if under[j] == nil {
				j++
				continue
			}
			k := j
			c := collapse(under[j])
			for k < len(steps) && under[k] == under[j] {
				c.Tokens += stepSize(steps[k])
				k++
			}
			c.Steps = append(c.Steps, cairn.IndexEntry{Round: r.Seq, From: steps[j].Seq, To: steps[k-1].Seq}.Ref())
			j = k
		}
		if p.Full {
			p.Keep = keep
		}
		m.Pieces = append(m.Pieces, p)
	}
	if len(m.Collapsed) == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "No round of %s was worked under a finished frame: nothing to collapse (cairn tree shows the frames; rounds are tagged with the frame in progress when they are inscribed).", s.ID)
	}
	for _, p := range m.Pieces {
		p.Round.Blocks = nil // measured with blocks; materialize loads what full rounds need
	}
	return m, st.materialize(ctx, m)
}

// stepSize is a step's text in tokens, as a round's size is measured.
func stepSize(s *cairn.Step) int64 {
	var n int64
	for _, b := range s.Blocks {
		n += int64(len(b.Content)+3) / 4
	}
	return n
}

// finishedSpans returns the finished frames session pushed that say when
// they went in progress and were popped, outermost first: a parent is
// pushed before its children.
func finishedSpans(frames []*cairn.Frame, session string) []*cairn.Frame {
	var out []*cairn.Frame
	for _, f := range frames {
		if Finished(f) && f.SessionID == session && !f.StartedAt.IsZero() && !f.EndedAt.IsZero() {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b *cairn.Frame) int { return a.StartedAt.Compare(b.StartedAt) })
	return out
}

// FrameSteps splits round r (with its blocks) into its steps and says,
// for each, the finished frame among spans it was worked under (nil:
// none): the first it was worked in ([cairn.Step.WorkedIn], the rule a
// pop's drafted results follow too), so the step that pushed it and the
// one that popped it are its own. When last (the session's last round),
// its last step stays its own, so a collapse ends where the session did.
func FrameSteps(r *cairn.Round, spans []*cairn.Frame, last bool) ([]*cairn.Step, []*cairn.Frame) {
	steps := cairn.Steps(r.Blocks, r.LastLine)
	under := make([]*cairn.Frame, len(steps))
	for i, s := range steps {
		if last && i == len(steps)-1 {
			continue
		}
		for _, f := range spans {
			if s.WorkedIn(f.StartedAt, f.EndedAt) {
				under[i] = f
				break
			}
		}
	}
	return steps, under
}

// keptSteps is the lines of round r a piece keeps when only kept of its
// steps stay: its prompt and each kept step.
func keptSteps(r *cairn.Round, steps, kept []*cairn.Step) []cairn.LineRange {
	var out []cairn.LineRange
	if steps[0].FirstLine > r.FirstLine {
		out = append(out, cairn.LineRange{From: r.FirstLine, To: steps[0].FirstLine - 1})
	}
	for _, s := range kept {
		if n := len(out); n > 0 && out[n-1].To+1 >= s.FirstLine {
			out[n-1].To = max(out[n-1].To, s.LastLine)
			continue
		}
		out = append(out, cairn.LineRange{From: s.FirstLine, To: s.LastLine})
	}
	return out
}

// lastCompaction is the index of the last of rounds that holds the
// client's compaction, -1 if none: the steps of rounds up to it are the
// client's to keep or drop, not a collapse's.
func lastCompaction(rounds []*cairn.Round) int {
	at := -1
	for i, r := range rounds {
		if slices.ContainsFunc(r.Blocks, func(b *cairn.Block) bool { return b.Kind == cairn.CompactionBlock }) {
			at = i
		}
	}
	return at
}

// A FrameCollapse is what collapsing one finished frame would free in a
// session.
type FrameCollapse struct {
	Session string `json:"session"`
	Rounds  []int  `json:"rounds"`
	Tokens  int64  `json:"tokens"`
	Command string `json:"command"`
}

// CollapseOf returns what collapsing frame would free in session (the
// session with the frame's latest rounds when session is ""), or nil if
// no round of that session was worked under it.
func CollapseOf(ctx context.Context, st Store, session, frame string) (*FrameCollapse, error) {
	rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{FrameID: frame, WithBlocks: true})
	if err != nil || len(rounds) == 0 {
		return nil, err
	}
	if session == "" || session == cairn.DefaultSession {
		session = rounds[len(rounds)-1].SessionID
		for _, r := range rounds {
			if r.EndedAt.After(rounds[len(rounds)-1].EndedAt) {
				session = r.SessionID
			}
		}
	}
	c := &FrameCollapse{Session: session, Command: "cairn compress-frames " + session}
	for _, r := range rounds {
		if r.SessionID != session || r.Seq == 0 {
			continue
		}
		c.Rounds = append(c.Rounds, r.Seq)
		for _, b := range r.Blocks {
			c.Tokens += int64(len(b.Content)+3) / 4
		}
	}
	if len(c.Rounds) == 0 {
		return nil, nil
	}
	return c, nil
}

// String is the line pop prints.
func (c *FrameCollapse) String() string {
	return fmt.Sprintf("Its %d round%s in session %s hold ~%d tokens; collapsing them to the frame's results frees about that much context: %s",
		len(c.Rounds), plural(len(c.Rounds)), short(c.Session), c.Tokens, c.Command)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// collapsedSummary is the summary's section on collapsed frames.
func collapsedSummary(b *strings.Builder, m *cairn.Materialization) {
	if len(m.Collapsed) == 0 {
		return
	}
	if slices.ContainsFunc(m.Collapsed, func(c *cairn.CollapsedFrame) bool { return len(c.Steps) > 0 }) {
		b.WriteString("\nFinished frames, each in place of the rounds or steps worked under it (read one with `cairn inject SESSION REF`):\n")
	} else {
		b.WriteString("\nFinished frames, each in place of the rounds worked under it (read a round with `cairn inject SESSION ROUND`):\n")
	}
	for _, c := range m.Collapsed {
		f := c.Frame
		fmt.Fprintf(b, "\n- Frame %s %q (%s) · %s of session %s\n", f.ID, f.Title, f.Status, c.Where(), c.SessionID)
		fmt.Fprintf(b, "  Criteria: %s\n", oneLine(f.CriteriaCompacted(), 1<<30))
		if f.Results != "" {
			fmt.Fprintf(b, "  Results: %s\n", oneLine(f.Results, 1<<30))
		}
		if f.ResultsCompacted != "" && f.ResultsCompacted != f.Results {
			fmt.Fprintf(b, "  Compaction: %s\n", oneLine(f.ResultsCompacted, 1<<30))
		}
		for _, a := range f.Artifacts {
			fmt.Fprintf(b, "  Artifact: %s\n", a)
		}
		for _, d := range f.Decisions {
			fmt.Fprintf(b, "  Decision: %s\n", oneLine(d, 1<<30))
		}
	}
}

// CollapseShare is the share of what the client holds that finished
// frames' rounds must reach before the hooks collapse them (the pressure
// note, the revive PreCompact prepares): below it a collapse frees too
// little to be worth moving to a new session.
const CollapseShare = 0.25

// A FramesWeight is what a session's finished frames hold of what the
// client holds for it.
type FramesWeight struct {
	Frames []string `json:"frames"` // their ids, in order of first round
	Rounds int      `json:"rounds"`
	Steps  int      `json:"steps,omitempty"` // worked under them in rounds that were not
	Tokens int64    `json:"tokens"`          // their rounds' and steps' estimate
	Held   int64    `json:"held"`            // what the client holds
}

// Percent is Tokens as a percentage of Held.
func (w *FramesWeight) Percent() int {
	if w.Held <= 0 {
		return 0
	}
	return int(w.Tokens * 100 / w.Held)
}

// Where is what they hold: "3 rounds", "5 steps", "3 rounds and 5 steps".
func (w *FramesWeight) Where() string {
	var parts []string
	if w.Rounds > 0 || w.Steps == 0 {
		parts = append(parts, fmt.Sprintf("%d round%s", w.Rounds, plural(w.Rounds)))
	}
	if w.Steps > 0 {
		parts = append(parts, fmt.Sprintf("%d step%s", w.Steps, plural(w.Steps)))
	}
	return strings.Join(parts, " and ")
}

// Pays reports whether collapsing the finished frames pays: they hold at
// least [CollapseShare] of what the client holds.
func (w *FramesWeight) Pays() bool {
	return w.Held > 0 && len(w.Frames) > 0 && float64(w.Tokens) >= CollapseShare*float64(w.Held)
}

// FinishedWeight measures what the rounds of session worked under a
// finished frame among frames hold, against held, what the client holds
// (0: what it loads when it resumes the session, [Resume]). Rounds the
// client compacted away, and the last round, which a collapse keeps, do
// not count. Returns ENOTFOUND if the session does not exist.
func FinishedWeight(ctx context.Context, st Store, session string, frames []*cairn.Frame, held int64) (*FramesWeight, error) {
	return finishedWeight(ctx, st, session, frames, held, false)
}

// FinishedWeightMidTurn is [FinishedWeight] while the session's turn goes
// on (a pop the agent runs): the last step written is not where the
// session will end, so it counts like any other, and held, what the
// client held by the last reply whose usage it read (that reply's
// request), grows by that step: the reply's own output and the results
// written after it, which the client sends with its next request.
func FinishedWeightMidTurn(ctx context.Context, st Store, session string, frames []*cairn.Frame, held int64) (*FramesWeight, error) {
	return finishedWeight(ctx, st, session, frames, held, true)
}

func finishedWeight(ctx context.Context, st Store, session string, frames []*cairn.Frame, held int64, midTurn bool) (*FramesWeight, error) {
	sz, err := st.measure(ctx, session)
	if err != nil {
		return nil, err
	}
	if held <= 0 {
		orig, err := Resume(ctx, st, sz.session.ID)
		if err != nil {
			return nil, err
		}
		held = Estimate(orig)
	}
	w := &FramesWeight{Held: held}
	byID := make(map[string]*cairn.Frame, len(frames))
	for _, fr := range frames {
		byID[fr.ID] = fr
	}
	comp := lastCompaction(sz.rounds)
	from := max(comp, 0) // the client loads from its last compaction on
	spans := finishedSpans(frames, sz.session.ID)
	add := func(fr *cairn.Frame) {
		if !slices.Contains(w.Frames, fr.ID) {
			w.Frames = append(w.Frames, fr.ID)
		}
	}
	for i, r := range sz.rounds {
		last := i == len(sz.rounds)-1
		if i < from {
			continue
		}
		if fr := byID[r.FrameID]; fr != nil && Finished(fr) && !last {
			add(fr)
			w.Rounds++
			w.Tokens += sz.size[i]
			continue
		}
		if i <= comp || len(spans) == 0 {
			continue // the client's to keep or drop, as CompressFrames leaves it
		}
		steps, under := FrameSteps(r, spans, last && !midTurn)
		for j, u := range under {
			if u != nil {
				add(u)
				w.Steps++
				w.Tokens += stepSize(steps[j])
			}
		}
		if last && midTurn && len(steps) > 0 {
			w.Held += stepSize(steps[len(steps)-1])
		}
	}
	return w, nil
}
