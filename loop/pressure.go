package loop

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

// pressure is a prompt's check of the context the
// client holds: when it has crossed a threshold of .cairn/config since the
// last prompt, it returns a short note for the agent (the percentage, what
// advise recommends and the command; when finished frames hold
// [surgery.CollapseShare] of the context, the command that resumes a
// revived session it prepared with them collapsed); else nothing. Reading
// the occupancy costs a read of the transcript's end; the transcript is
// inscribed and advise run only on a crossing. When the note names a
// revived session, the person is shown the command that resumes it
// ([Loop.personOnce]): only the person can run it; when it names advise's
// command, the person is shown that command at each crossing: it ends in
// a session only the person can switch to. Any prompt ends what the
// status line repeated of the last one ([Loop.Showing]).
func (l *Loop) pressure(ctx context.Context, in Event) (Reply, error) {
	l.movedOn(in.Session)
	cfg, err := l.Workspace.ReadConfig()
	if err != nil {
		return Reply{}, err
	}
	if len(cfg.Pressure) == 0 || in.Transcript == "" || in.Session == "" {
		return Reply{}, nil
	}
	occ, err := l.Occupancy(in.Session, in.Transcript)
	if err != nil {
		return Reply{}, err // the transcript is refused
	}
	if occ == nil {
		return Reply{}, nil // no reply so far
	}
	crossed, err := l.Workspace.Crossed(in.Session, occ.Percent(), cfg.Pressure)
	if err != nil || crossed == 0 {
		return Reply{}, err
	}
	// Advise reads the stored session: bring it up to the transcript's end
	// first. This is the one prompt of a crossing that waits for it.
	if _, err := l.Inscribe(ctx, in); err != nil {
		return Reply{}, err
	}
	st, err := l.Open()
	if err != nil {
		return Reply{Agent: pressureNote(occ, crossed, in.Session, nil, nil)}, nil
	}
	// Finished frames holding a share of the context, or a context at the
	// point where the client compacts before the next request: a revived
	// session ready to resume is the one command, the same one a
	// compaction landing on this prompt names ([Loop.revive]).
	var pays bool
	if frames, err := st.Frames.FindFrames(ctx); err == nil {
		w, err := surgery.FinishedWeight(ctx, st.Surgery(), in.Session, frames, occ.Tokens)
		pays = err == nil && w.Pays()
	}
	if full := occ.Percent() >= 100; pays || full {
		if resume, weight, err := l.revive(ctx, st, in, in.Session, occ.Tokens); err == nil && resume != "" && (weight != nil || full) {
			c := &collapseNote{weight, resume}
			return Reply{Agent: pressureNote(occ, crossed, in.Session, nil, c), Person: l.personOnce(in.Session, resume, crossingForPerson(occ, c))}, nil
		}
	}
	advice, _ := surgery.AdviseAt(ctx, st.Surgery(), in.Session, occ)
	op, command, _ := advised(in.Session, advice)
	again := l.lastShown(in.Session) == command
	return Reply{Agent: pressureNote(occ, crossed, in.Session, advice, nil), Person: l.personShow(in.Session, command, adviceForPerson(occ, crossed, op, command, again))}, nil
}

// advised is the operation a pressure note recommends, its command and
// why: advise's, else a revive of session.
func advised(session string, a *surgery.Advice) (op, command, reason string) {
	if a != nil && a.Command != "" {
		return a.Operation, a.Command, a.Reason
	}
	return "revive", "cairn revive " + session, "a fresh session from this one, compressed, within budget"
}

// adviceForPerson is what the person is shown of a crossing whose note
// recommends command: the agent may run it, but it ends in a switch to
// another session (the claude --resume line it prints) only the person
// can make. again: the person was last shown the same command (an
// earlier mark's), which the crossing says still stands rather than
// reading as new advice.
func adviceForPerson(occ *cairn.Occupancy, crossed int, op, command string, again bool) string {
	when := fmt.Sprintf("cairn: the context is %d%% of the way to where the client compacts it (%s of %s tokens; past the %d%% mark).", occ.Percent(), Thousands(occ.Tokens), Thousands(occ.Window.CompactAt), crossed)
	if again {
		return fmt.Sprintf("%s The advice shown at an earlier mark still stands (cairn advise recommends %s again, and the agent was told the same command): %s. It prints the claude --resume line of a lighter session. Only you can switch to it.", when, op, command)
	}
	return fmt.Sprintf("%s cairn advise recommends %s, and the agent was told the same command: %s. It prints the claude --resume line of a lighter session. Only you can switch to it.", when, op, command)
}

// A collapseNote is the revived session the pressure hook prepared, and
// what the finished frames it collapsed held (nil: none collapsed).
type collapseNote struct {
	weight *surgery.FramesWeight
	resume string
}

// pressureNote is what the agent reads when its context crosses a
// threshold.
func pressureNote(occ *cairn.Occupancy, crossed int, session string, a *surgery.Advice, c *collapseNote) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cairn: your context is %d%% of the way to where the client compacts it (%s of %s tokens; window %s; past the %d%% mark). %s",
		occ.Percent(), Thousands(occ.Tokens), Thousands(occ.Window.CompactAt), Thousands(occ.Window.Size), crossed, AtFull(occ.Window))
	if c != nil && c.weight == nil {
		fmt.Fprintf(&b, "\nThe client compacts it before your next request: cairn prepared a revived session within budget, the recent rounds in full and the rest as an index (the compaction names the same one).\nCommand: %s (resumes the revived session).", c.resume)
		b.WriteString(beforeThat(session, true))
		return b.String()
	}
	if c != nil {
		w := c.weight
		fmt.Fprintf(&b, "\nFinished frames (%s) hold %d%% of it (~%s tokens in %s): cairn prepared a revived session with them collapsed to their results, the rest within budget (they stay readable: cairn inject %s REF).\nCommand: %s (resumes the lighter session).",
			strings.Join(w.Frames, ", "), w.Percent(), Thousands(w.Tokens), w.Where(), session, c.resume)
		b.WriteString(beforeThat(session, false))
		return b.String()
	}
	op, command, reason := advised(session, a)
	fmt.Fprintf(&b, "\ncairn advise recommends %s: %s\nCommand: %s (it prints the claude --resume line for the new session).", op, strings.TrimSpace(reason), command)
	b.WriteString(beforeThat(session, true))
	return b.String()
}

// beforeThat is what a pressure note asks first, each command naming the
// session it acts on: a note read anywhere else (a copy, a session
// resumed from this one) acts on this session or on none.
func beforeThat(session string, pop bool) string {
	checkpoint := "checkpoint what is next (cairn checkpoint --session " + session + " …)"
	if !pop {
		return "\nBefore that: " + checkpoint + ", so the next session starts oriented."
	}
	return "\nBefore that: pop finished frames with their results (cairn pop --session " + session + " --results …) and " + checkpoint + ", so the next session starts oriented."
}

// AtFull says what the client does at 100 %, as it was measured doing
// ([cairn.Window.Reactive]): never a compaction at a point it does not
// compact at.
func AtFull(w cairn.Window) string {
	if w.Reactive {
		return "The client compacts it at no threshold of its own: at 100% the API refuses its request, and the client compacts it then, lossily."
	}
	return "At 100% the client compacts it, lossily."
}
