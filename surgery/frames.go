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
// rest as index lines. frames are the store's frames. The last round
// always stays in full, so the resumed session ends where the original
// did. Returns ENOTFOUND if the session does not exist and EINVALID if no
// round was worked under a finished frame.
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
	recent, _ := sz.recent()
	m := newMaterialization(cairn.OpCompressFrames, f, []*cairn.Session{s}, s.ID)
	collapsed := map[string]*cairn.CollapsedFrame{}
	for i, r := range rounds {
		fr := byID[r.FrameID]
		switch {
		case i == len(rounds)-1:
			m.Pieces = append(m.Pieces, &cairn.Piece{Round: r, Full: true})
		case fr != nil && Finished(fr):
			c := collapsed[fr.ID]
			if c == nil {
				c = &cairn.CollapsedFrame{Frame: fr, SessionID: s.ID}
				collapsed[fr.ID] = c
				m.Collapsed = append(m.Collapsed, c)
			}
			c.Rounds = append(c.Rounds, r.Seq)
			c.Tokens += sz.size[i]
		case fr != nil:
			m.Pieces = append(m.Pieces, &cairn.Piece{Round: r, Full: true})
		default:
			m.Pieces = append(m.Pieces, &cairn.Piece{Round: r, Full: i >= recent})
		}
	}
	if len(m.Collapsed) == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "No round of %s was worked under a finished frame: nothing to collapse (cairn tree shows the frames; rounds are tagged with the frame in progress when they are inscribed).", s.ID)
	}
	for _, p := range m.Pieces {
		p.Round.Blocks = nil // measured with blocks; materialize loads what full rounds need
	}
	return m, st.materialize(ctx, m)
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
	b.WriteString("\nFinished frames, each in place of the rounds worked under it (read a round with `cairn inject SESSION ROUND`):\n")
	for _, c := range m.Collapsed {
		f := c.Frame
		var seqs []string
		for _, n := range c.Rounds {
			seqs = append(seqs, fmt.Sprintf("%d", n))
		}
		fmt.Fprintf(b, "\n- Frame %s %q (%s) · rounds %s of session %s\n", f.ID, f.Title, f.Status, strings.Join(seqs, ", "), c.SessionID)
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
	Tokens int64    `json:"tokens"` // their rounds' estimate
	Held   int64    `json:"held"`   // what the client holds
}

// Percent is Tokens as a percentage of Held.
func (w *FramesWeight) Percent() int {
	if w.Held <= 0 {
		return 0
	}
	return int(w.Tokens * 100 / w.Held)
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
	from := 0 // the client loads from its last compaction on
	for i, r := range sz.rounds {
		for _, b := range r.Blocks {
			if b.Kind == cairn.CompactionBlock {
				from = i
			}
		}
	}
	for i, r := range sz.rounds[:len(sz.rounds)-1] {
		fr := byID[r.FrameID]
		if i < from || fr == nil || !Finished(fr) {
			continue
		}
		if !slices.Contains(w.Frames, fr.ID) {
			w.Frames = append(w.Frames, fr.ID)
		}
		w.Rounds++
		w.Tokens += sz.size[i]
	}
	return w, nil
}
