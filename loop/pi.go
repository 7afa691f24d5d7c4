package loop

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/surgery"
)

// Compaction is cairn's compaction of session for a harness that lets
// cairn compact it (pi): the session revived within budget for client, as
// markdown (continuation block, index, the last rounds in full), and the
// materialization it was written from. With upto, the id of one of a pi
// session's entries, the session is revived as it was when that entry was
// its last (pi.OffPathFrom): a compaction prepared ahead of pi's, which
// pi's kept entries then follow.
func (l *Loop) Compaction(ctx context.Context, session string, budget int64, client, upto string) (string, *cairn.Materialization, error) {
	st, err := l.Open()
	if err != nil {
		return "", nil, err
	}
	sst := st.Surgery()
	sst.Limits = surgery.Limits{Budget: budget, Client: client}
	sst.NoLines = true // written as markdown, from the blocks
	if upto != "" {
		sst.OffPath = offPathUpTo(st.Lines, upto)
	}
	mat, err := surgery.Revive(ctx, sst, session, "", "", cairn.Fidelity{})
	if err != nil {
		return "", nil, err
	}
	var md strings.Builder
	if err := export.MaterializationMarkdown(&md, mat); err != nil {
		return "", nil, err
	}
	return md.String(), mat, nil
}

// offPathUpTo is surgery's OffPath of a pi session as it was when its
// entry upto was the last: its lines read once.
func offPathUpTo(lines cairn.LineStore, upto string) func(context.Context, *cairn.Session) (map[int]bool, error) {
	var off map[int]bool
	return func(ctx context.Context, s *cairn.Session) (map[int]bool, error) {
		if off != nil {
			return off, nil
		}
		ls, err := lines.FindAllLines(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		off, err = pi.OffPathFrom(ls, upto)
		return off, err
	}
}

// PiBudget is the budget of cairn's compaction for a window and pi's
// reserve: revive's own (half the window), but never past the point where
// pi compacts (window less reserve), so the compacted session does not
// compact again at once; revive's default when pi gives no window.
func PiBudget(window, reserve int64) int64 {
	if window <= 0 {
		return surgery.AutoBudget
	}
	b := window / 2
	if window-reserve > 0 && window-reserve < b {
		b = window - reserve
	}
	return b
}

// A PiLeaf is the branch's last entry as cairn's pi extension sends it:
// its id, entry type and, for a message, its role, why it stopped and its
// tool calls.
type PiLeaf struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	Role       string `json:"role"`
	StopReason string `json:"stop_reason"`
	ToolCalls  int    `json:"tool_calls"`
}

// PiFirstKept is the entry pi keeps from after cairn's compaction, whose
// summary holds the last rounds in full: only the branch's last entry when
// it is the assistant's finished reply, with no call waiting for a result
// (the summary, a user message, then the reply, then the next prompt keep
// the roles in turn), else firstKept, where pi would keep from (an
// overflow compaction, whose leaf is a prompt, a tool's result or an error
// pi retries from).
func PiFirstKept(l PiLeaf, firstKept string) string {
	if l.ID != "" && l.Type == "message" && l.Role == "assistant" && l.ToolCalls == 0 && l.StopReason != "error" && l.StopReason != "aborted" {
		return l.ID
	}
	return firstKept
}

// PiInscribe inscribes pi's session file, the store's session, as a live
// import ([Loop.Inscribe]).
func (l *Loop) PiInscribe(ctx context.Context, session, file string) error {
	_, err := l.Inscribe(ctx, Event{Harness: Pi, Session: session, Transcript: file})
	return err
}

// A PiCompact is a compaction cairn's pi extension asks for (at
// session_before_compact, or ahead of it): the session and its file, the
// model's window and pi's reserve, the entry pi would keep from and the
// branch's last entry; Upto, for a compaction prepared ahead of pi's, the
// entry the session is compacted up to.
type PiCompact struct {
	Session, File   string
	Window, Reserve int64
	FirstKept       string
	Leaf            PiLeaf
	Upto            string
}

// A PiCompacted is cairn's compaction for pi: the summary pi puts first in
// the context, the session, the entry pi keeps from (FirstKept), for a
// prepared one the entry it compacts up to instead (Upto), which the
// extension keeps the entries after, and the summary's tokens and budget.
type PiCompacted struct {
	Summary, Session, FirstKept, Upto string
	Tokens, Budget                    int64
}

// PiCompact inscribes the session and compacts it for pi: revived within
// [PiBudget] as markdown ([Loop.Compaction]), up to c.Upto when prepared,
// pi keeping from [PiFirstKept] otherwise.
func (l *Loop) PiCompact(ctx context.Context, c PiCompact) (PiCompacted, error) {
	if err := l.PiInscribe(ctx, c.Session, c.File); err != nil {
		return PiCompacted{}, err
	}
	md, mat, err := l.Compaction(ctx, c.Session, PiBudget(c.Window, c.Reserve), cairn.AgentPi, c.Upto)
	if err != nil {
		return PiCompacted{}, err
	}
	r := PiCompacted{Summary: md, Session: c.Session, Tokens: mat.Tokens, Budget: mat.Budget}
	if c.Upto != "" {
		r.Upto = c.Upto
	} else {
		r.FirstKept = PiFirstKept(c.Leaf, c.FirstKept)
	}
	return r, nil
}

// PiSession is the session a pi moment names: the id of its file's header
// (the store's) once pi has written the file, else the id pi gave; folder
// is then the file's, which the live import reads (pi runs on any file
// --session names, and this one reads as a pi session). A file not yet
// written is no error: pi writes it at its first reply.
func PiSession(id, file string) (session, folder string, err error) {
	if file == "" {
		return id, "", nil
	}
	switch header, err := PiSessionID(file); {
	case err == nil:
		return header, filepath.Dir(file), nil
	case !errors.Is(err, os.ErrNotExist):
		return "", "", err
	}
	return id, "", nil
}

// PiSessionID reads the id of a pi session file's header line, which is
// the session's id in the store: the file opened under the rule the
// import applies to a path it is given ([inscribe.Open]), its first line
// read by [pi.Format.Identify] as the import reads it.
func PiSessionID(path string) (string, error) {
	f, err := inscribe.Open(path, nil)
	if err != nil {
		return "", err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return "", err
	}
	s, err := pi.Format{}.Identify(path, [][]byte{line})
	if err != nil {
		return "", err
	}
	return s.ID, nil
}

// A PiHook is what cairn's pi extension says of a moment of pi's session
// (pi/extension/cairn.ts): the event ("start" at session_start, after a
// compaction; "prompt" at before_agent_start; "end" at session_shutdown),
// the session's id and file, pi's working folder, session_start's and
// session_shutdown's reason, whether what pi sends at the start still
// holds cairn's context (its message after the last compaction's kept
// entry, on the branch pi goes on from), whether a compaction pi just made
// was one prepared ahead (which inscribed the session only up to its
// entry), the prompt, and the context as pi measures it
// (ctx.getContextUsage: its estimate, 0 when unknown, and the model's
// window) with pi's compaction setting.
type PiHook struct {
	Event, Session, File, Cwd, Reason, Prompt, Model string
	Resumed, Prepared                                bool
	Tokens, Window                                   int64
	Compaction                                       pi.Compaction
}

// InscribesAtStart says whether pi's start inscribes the session it names,
// in a workspace or not: what a compaction would read at once is read
// while pi starts (pi does not wait for start before the person's first
// prompt). A session that holds cairn's context was inscribed at its end
// ([Loop.Handle]'s), one just compacted by the compaction (unless it was
// prepared ahead, up to an earlier entry): neither is read again.
func (h PiHook) InscribesAtStart() bool {
	return h.Event == "start" && h.File != "" && !h.Resumed && (h.Reason != "compact" || h.Prepared)
}

// FromPi is the moment a pi hook stands for: "start" a session's start,
// a resume when what pi sends still holds cairn's context (whatever pi's
// reason: it starts a session it loads with "startup", and a session
// resumed after a compaction dropped the context is given it whole), after
// a compaction, else from new; "prompt" a prompt, with the context's
// occupancy at pi's own window and compaction point when pi gave one;
// "end" the session's end.
func FromPi(h PiHook) Event {
	ev := Event{Harness: Pi, Session: h.Session, Transcript: h.File, Cwd: h.Cwd, Reason: h.Reason, Prompt: h.Prompt}
	switch h.Event {
	case "start":
		ev.Kind, ev.Source = Start, FromNew
		switch {
		case h.Reason == "compact":
			ev.Source = FromCompact
		case h.Resumed:
			ev.Source = FromResume
		}
	case "prompt":
		ev.Kind = Prompt
		if at := h.Compaction.CompactAt(h.Window); at > 0 && h.Tokens > 0 {
			ev.Occupancy = &cairn.Occupancy{Tokens: h.Tokens, Model: h.Model,
				Window: cairn.Window{Size: h.Window, CompactAt: at, Source: "pi"}}
		}
	case "end":
		ev.Kind = End
	}
	return ev
}

// piPressure is a pi prompt's pressure note: when the context pi measures
// has crossed a threshold of .cairn/config since the last prompt, the
// figure at pi's own compaction point and what cairn's compaction will
// keep, for the agent, and the figure for the person.
func (l *Loop) piPressure(_ context.Context, in Event) (Reply, error) {
	return l.measuredPressure(in, "pi", fmt.Sprintf("At 100%% pi compacts it with cairn's compaction: the recent rounds in full, the rest as an index, each round one cairn inject %s ROUND away.", in.Session))
}
