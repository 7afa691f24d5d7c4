package workspace

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

var _ cairn.TraceStore = (*Workspace)(nil)

// A trace file is .cairn/traces/<session>.md in the seed's line format
// under a heading per day (times are UTC):
//
//	# Trace: 5c0375b4
//
//	## 2026-03-19 (UTC)
//	11:00 whatsapp-import → iphone-extraction | need broader extraction plan
//	11:15 iphone-extraction → cloud-storage | 309GB backup needs offsite

var (
	traceDay  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^## (\d{4}-\d{2}-\d{2})`) })
	traceMove = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d{2}:\d{2}(?::\d{2})?) (.+?) → (.+?)(?: \| (.*))?$`)
	})
)

func (w *Workspace) tracePath(session string) (string, error) {
	if !NamesFile(session) {
		return "", cairn.Errorf(cairn.EINVALID, "Session id %q cannot name a trace file.", session)
	}
	return w.private(cairn.TracesDir, session+".md"), nil
}

// FindTrace returns a session's trace. Returns ENOTFOUND if the session
// never moved and EINVALID, with the line, if the file has a line that is
// neither a heading nor a move.
func (w *Workspace) FindTrace(session string) (*cairn.Trace, error) {
	path, err := w.tracePath(session)
	if err != nil {
		return nil, err
	}
	data, err := readFile(path)
	if err != nil {
		return nil, err
	} else if data == nil {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "Session %s has no trace: it never moved (cairn engage records a move).", session)
	}
	return parseTrace(session, string(data))
}

// AppendMove adds m to the session's trace, under the lock.
func (w *Workspace) AppendMove(session string, m *cairn.Move) error {
	unlock, err := w.lock()
	if err != nil {
		return err
	}
	defer unlock()
	e, err := w.appendMove(session, m)
	if err != nil {
		return err
	}
	return writeFiles(e)
}

// appendMove is AppendMove for a caller that holds the lock: the trace
// with m at its end, for the caller to write. A stay (From == To) that
// the trace ends with already, the same minute for the same reason (a
// session's end run twice), leaves the trace as it is: the line would
// say nothing new.
func (w *Workspace) appendMove(session string, m *cairn.Move) (edit, error) {
	if m.From == "" || m.To == "" {
		return edit{}, cairn.Errorf(cairn.EINVALID, "A move needs the situation it leaves and the one it enters.")
	}
	path, err := w.tracePath(session)
	if err != nil {
		return edit{}, err
	}
	if m.Time.IsZero() {
		m.Time = w.now()
	}
	data, err := readFile(path)
	if err != nil {
		return edit{}, err
	}
	text := string(data)
	if text == "" {
		text = fmt.Sprintf("# Trace: %s\n", session)
	}
	t := m.Time.UTC()
	day := t.Format(time.DateOnly)
	if lastDay(text) != day {
		text = strings.TrimRight(text, "\n") + "\n\n## " + day + " (UTC)\n"
	}
	line := fmt.Sprintf("%s %s → %s", t.Format("15:04"), m.From, m.To)
	if trigger := oneLine(m.Trigger); trigger != "" {
		line += " | " + trigger
	}
	if m.From == m.To && strings.HasSuffix(text, "\n"+line+"\n") {
		return edit{path: path, data: data, held: data, read: true}, nil
	}
	return edit{path: path, data: []byte(text + line + "\n"), held: data, read: true}, nil
}

func lastDay(text string) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if m := traceDay().FindStringSubmatch(lines[i]); m != nil {
			return m[1]
		}
	}
	return ""
}

func parseTrace(session, text string) (*cairn.Trace, error) {
	t := &cairn.Trace{Session: session}
	var day time.Time
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := traceDay().FindStringSubmatch(line); m != nil {
			day, _ = time.Parse(time.DateOnly, m[1])
			continue
		}
		m, err := traceLine(session, i, line)
		if err != nil {
			return nil, err
		} else if m == nil {
			continue
		}
		clock, _ := time.Parse("15:04", m[1][:5])
		at := day.Add(time.Duration(clock.Hour())*time.Hour + time.Duration(clock.Minute())*time.Minute)
		t.Moves = append(t.Moves, &cairn.Move{Time: at, From: m[2], To: m[3], Trigger: m[4]})
	}
	return t, nil
}

// traceLine is the parts of line i (from 0) of session's trace, a move,
// nil for a line that is not one (blank, a heading, a quote), EINVALID
// naming the line for anything else.
func traceLine(session string, i int, line string) ([]string, error) {
	if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ">") {
		return nil, nil
	}
	m := traceMove().FindStringSubmatch(line)
	if m == nil {
		return nil, cairn.Errorf(cairn.EINVALID, "%s:%d: want \"HH:MM from → to | trigger\", got %q.",
			filepath.ToSlash(filepath.Join(Dir, cairn.TracesDir, session+".md")), i+1, line)
	}
	return m, nil
}

// Current returns where the acting session is: where its trace last went
// ([cairn.Trace.Current]), else here, the situation of the folder the
// actor works in. It reads the trace's last move alone, from the end, as
// every session's end does: a trace of 1,000 moves parsed whole took 13 %
// of an end's CPU.
func (w *Workspace) Current(here string) (string, error) {
	path, err := w.tracePath(w.Session)
	if err != nil {
		return "", err
	}
	data, err := readFile(path)
	if err != nil {
		return "", err
	} else if data == nil {
		return here, nil
	}
	lines := strings.Split(strings.TrimRight(string(data), "\r\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		m, err := traceLine(w.Session, i, strings.TrimRight(lines[i], "\r"))
		if err != nil {
			return "", err
		} else if m != nil {
			return m[3], nil
		}
	}
	return "", nil
}

// An Engagement is what engage found at the situation it entered.
type Engaged struct {
	From, To     string
	Checkpointed bool // a checkpoint was written at From
	Board        *cairn.Board
	Index        string
	HasIndex     bool
	Listing      []string // the folder's contents when there is no index
}

// Engage switches the acting session from the situation from to the
// situation to: it writes checkpoint c on from's board (unless c is nil),
// records the move with its trigger in the session's trace, and returns
// to's board and index. All of it happens under one hold of the lock.
// Returns ENOTFOUND if either situation's folder is missing.
func (w *Workspace) Engage(from, to, trigger string, c *cairn.Checkpoint) (*Engaged, error) {
	if _, err := w.situationDir(to); err != nil {
		return nil, err
	}
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	e := &Engaged{From: from, To: to}
	var edits []edit
	if c != nil {
		board, err := w.checkpoint(from, c)
		if err != nil {
			return nil, err
		}
		edits = append(edits, board)
		e.Checkpointed = true
	}
	trace, err := w.appendMove(w.Session, &cairn.Move{From: from, To: to, Trigger: trigger})
	if err != nil {
		return nil, err
	}
	if err := writeFiles(append(edits, trace)...); err != nil {
		return nil, err
	}
	if e.Board, err = w.FindBoard(to); err != nil {
		return nil, err
	}
	if e.Index, e.HasIndex, err = w.FindIndex(to); err != nil {
		return nil, err
	} else if !e.HasIndex {
		if e.Listing, err = w.Listing(to); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Back engages the situation the acting session was in before its current
// one, replaying its trace as a history (see [cairn.Trace.Stack]). Returns
// ENOTFOUND if there is nowhere to go back to.
func (w *Workspace) Back(why string, c *cairn.Checkpoint) (*Engaged, error) {
	t, err := w.FindTrace(w.Session)
	if err != nil {
		return nil, err
	}
	stack := t.Stack()
	if len(stack) < 2 {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "Session %s has nowhere to go back to: it is where it started (%s).", w.Session, t.Current())
	}
	trigger := cairn.BackTrigger
	if why = oneLine(why); why != "" {
		trigger += ": " + why
	}
	return w.Engage(stack[len(stack)-1], stack[len(stack)-2], trigger, c)
}

// A Recovery is where a session was and what it was doing, rebuilt from
// its trace and the boards and indices of the situations it visited.
type Recovery struct {
	Trace   *cairn.Trace
	Path    []string // situations in the order visited
	Current string
	Arrived *cairn.Move // the move into Current

	// Visited holds, per situation in order of first visit, the last
	// checkpoint this session wrote there (nil if none).
	Visited []Visit

	Board    *cairn.Board // Current's board
	Index    string
	HasIndex bool
}

// A Visit is one situation a session went through.
type Visit struct {
	Situation string
	Last      *cairn.Checkpoint
}

// Recover rebuilds where session was and what it was doing. Returns
// ENOTFOUND if the session has no trace. A visited situation whose folder
// has since gone is listed without a checkpoint.
func (w *Workspace) Recover(session string) (*Recovery, error) {
	t, err := w.FindTrace(session)
	if err != nil {
		return nil, err
	}
	r := &Recovery{Trace: t, Path: t.Path(), Current: t.Current()}
	if len(t.Moves) > 0 {
		r.Arrived = t.Moves[len(t.Moves)-1]
	}
	seen := map[string]bool{}
	for _, s := range r.Path {
		if seen[s] {
			continue
		}
		seen[s] = true
		v := Visit{Situation: s}
		if b, err := w.FindBoard(s); err == nil {
			for _, c := range b.Checkpoints {
				if c.Session == session {
					v.Last = c
				}
			}
		} else if cairn.ErrorCode(err) != cairn.ENOTFOUND {
			return nil, err
		}
		r.Visited = append(r.Visited, v)
	}
	if r.Current != "" {
		if r.Board, err = w.FindBoard(r.Current); err != nil {
			return nil, err
		}
		if r.Index, r.HasIndex, err = w.FindIndex(r.Current); err != nil {
			return nil, err
		}
	}
	return r, nil
}
