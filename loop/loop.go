// Package loop is cairn's live loop: what it does at each moment of a
// running agent session, whichever harness runs it. A harness's edge
// decodes its own hook input into an [Event]; [Loop.Handle] reads and
// records what the moment needs (the store, the workspace's relay files,
// the transcript's end) and returns a [Reply]: what to tell the agent and
// what to tell the person. The edge encodes the reply in its harness's
// output. The decisions live here once, so every harness, the MCP server
// and the viewer share them and tests reach them without a process.
package loop

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/surgery"
	"github.com/cairn-dev/cairn/workspace"
)

// A Kind is a moment of a live session.
type Kind int

const (
	Start         Kind = iota + 1 // a session starts: new, resumed, after a compaction, after a clear ([Event.Source])
	Prompt                        // the person sent a prompt
	ToolCall                      // the agent is about to call a tool (the sub-agent tool only)
	ToolResult                    // a tool call returned, or failed
	TurnEnd                       // the agent finished its answer
	PreCompact                    // the client is about to compact the context ([Event.Trigger])
	SubagentStart                 // a sub-agent starts
	SubagentStop                  // a sub-agent finished
	End                           // the session ends ([Event.Reason])
)

// Harnesses the loop knows. What reads a transcript's occupancy, its last
// writes or exports a revived session is Claude Code's alone so far.
const (
	ClaudeCode = cairn.AgentClaudeCode
	Gemini     = cairn.AgentGemini
	Pi         = cairn.AgentPi
)

// Where a session starts from ([Event.Source]), as Claude Code names them.
const (
	FromNew     = "startup"
	FromResume  = "resume"
	FromCompact = "compact"
	FromClear   = "clear"
)

// An Event is one moment of a live session, harness-neutral.
type Event struct {
	Kind       Kind
	Harness    string // ClaudeCode, Gemini, Pi, Opencode
	Session    string // the client's session id
	Transcript string // the session's file
	Cwd        string
	Source     string // Start: FromNew, FromResume, FromCompact, FromClear
	Trigger    string // PreCompact: "auto" (the context ran out) or "manual"
	Reason     string // End: why the session ended
	Prompt     string // Prompt: the person's words alone
	// Occupancy is the context as the client measures it (pi: its
	// estimate, its model's window and compaction point); nil: read from
	// the transcript's end (Claude Code).
	Occupancy *cairn.Occupancy

	Tool      string          // ToolCall: the tool's name
	ToolInput json.RawMessage // ToolCall: its input

	Agent      string // SubagentStart, SubagentStop: the sub-agent's id
	LastAnswer string // SubagentStop: its last answer
}

// A Reply is what a moment gives back: for the agent (added to its
// context) and for the person (shown by the client, not sent to the
// model). Either may be empty.
type Reply struct {
	Agent  string
	Person string
}

// Stores are the stores the loop reads and records in.
type Stores struct {
	Sessions    cairn.SessionStore
	Rounds      cairn.RoundStore
	Lines       cairn.LineStore
	Inscription cairn.InscriptionStore
	Frames      cairn.FrameStore
	Missions    cairn.MissionStore
	Engagements cairn.EngagementStore
	Import      inscribe.Store // what an import writes to (a sweeper, when the store keeps what a killed writer left)
}

// Surgery returns the stores surgery reads.
func (s *Stores) Surgery() surgery.Store {
	return surgery.Store{Sessions: s.Sessions, Rounds: s.Rounds, Lines: s.Lines, Engagements: s.Engagements, OffPath: pi.SessionOffPath(s.Lines)}
}

// A Loop is the live loop of one workspace, for one event at a time. What
// only the edge can do (open the store its flags name, export a session
// the client resumes, keep the mission's files in step) it hands in.
type Loop struct {
	Workspace *workspace.Workspace // its Session is the acting cairn session
	Wd        string               // the folder the agent works in: its situation
	Owner     string               // $CAIRN_AGENT: whose frames are current
	Now       func() time.Time
	Getenv    func(string) string // the client's environment, for the window

	// Folders are those a transcript is read from ([inscribe.Open]).
	Folders []string
	// Redact, when set, replaces secrets in lines before they are stored.
	Redact func([]byte) []byte
	// Warn receives what is named and passed over (a sub-agent's file
	// refused).
	Warn io.Writer
	// ExhaustionRun is how many empty writes in a row mean the context
	// ran out; 0 turns the check off.
	ExhaustionRun int
	// OpencodeLogs is the folder opencode sessions are mirrored to as
	// logs, which the live import reads (opencode keeps them in a store).
	OpencodeLogs string

	// Open returns the event's stores; the edge opens them once and
	// closes them after the event.
	Open func() (*Stores, error)
	// Export writes mat as a Claude Code session in dir, for cwd,
	// inscribes it, and returns the command that resumes it.
	Export func(ctx context.Context, st *Stores, mat *cairn.Materialization, dir, cwd string) (resume string, err error)
	// SyncMission keeps the mission's files in step with the store.
	SyncMission func(ctx context.Context, st *Stores) error
}

// Handle does what the loop does at ev and returns what to tell the agent
// and the person.
func (l *Loop) Handle(ctx context.Context, ev Event) (Reply, error) {
	switch ev.Kind {
	case Start:
		text, err := l.start(ctx, ev)
		return Reply{Agent: text, Person: l.personAtStart(ev)}, err
	case Prompt:
		return l.prompt(ctx, ev)
	case TurnEnd:
		last, err := l.Inscribe(ctx, ev)
		if err == nil && last != nil {
			err = l.noteWrites(ctx, last.SessionID)
		}
		if err != nil || ev.Harness != ClaudeCode {
			return Reply{}, err
		}
		var pop Reply
		if last != nil {
			if pop, err = l.popped(ctx, ev, last.SessionID); err != nil {
				return Reply{}, err
			}
		}
		ex, err := l.exhaustion(ctx, ev)
		return joinReplies(pop, ex), err
	case ToolResult:
		if ev.Harness != ClaudeCode {
			return Reply{}, nil
		}
		return l.exhaustion(ctx, ev)
	case PreCompact:
		if ev.Harness == Opencode {
			return l.opencodeCompact(ctx, ev)
		}
		if ev.Harness != ClaudeCode {
			_, err := l.Inscribe(ctx, ev)
			return Reply{}, err
		}
		return Reply{}, l.preCompact(ctx, ev)
	case End:
		return Reply{}, l.end(ctx, ev)
	case ToolCall:
		return Reply{}, l.toolCall(ev)
	case SubagentStart:
		text, err := l.subagentStart(ev)
		return Reply{Agent: text}, err
	case SubagentStop:
		return Reply{}, l.subagentStop(ev)
	}
	return Reply{}, nil
}

// prompt is what a prompt is given: the pressure note when the context
// crossed a threshold (Claude Code), and the first frame suggestion not
// yet shown, in one text: the client reads one answer per hook; the
// person, a pop its turn's end could not weigh ([Loop.popped]). It
// inscribes nothing else: the prompt waits for it, and the turn's end
// inscribes. The prompt sends a resume's note ([noteSent]).
func (l *Loop) prompt(ctx context.Context, ev Event) (Reply, error) {
	noteSent(l.Workspace, ev.Session)
	var notes []string
	var person string
	var pop Reply
	if ev.Harness == ClaudeCode {
		var err error
		if pop, err = l.popped(ctx, ev, ev.Session); err != nil {
			return Reply{}, err
		}
		pop.Agent = strings.TrimSpace(l.told(ev.Session) + "\n" + pop.Agent)
	}
	if ev.Harness == ClaudeCode || ev.Harness == Pi || ev.Harness == Opencode {
		pressure := l.pressure
		switch ev.Harness {
		case Pi:
			pressure = l.piPressure
		case Opencode:
			pressure = l.opencodePressure
		}
		r, err := pressure(ctx, ev)
		if err != nil {
			return Reply{}, err
		}
		if r.Agent != "" {
			notes = append(notes, r.Agent)
		}
		person = r.Person
	}
	line, err := l.suggest(ctx, ev.Prompt)
	if err != nil {
		return Reply{}, err
	}
	if line != "" {
		notes = append(notes, line)
	}
	return joinReplies(pop, Reply{Agent: strings.Join(notes, "\n"), Person: person}), nil
}

func (l *Loop) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}
