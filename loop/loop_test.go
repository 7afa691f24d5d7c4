package loop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
	"github.com/cairn-dev/cairn/workspace"
)

// harnesses are those whose hooks reach the loop: each decision they
// share is checked for both.
var harnesses = []string{ClaudeCode, Gemini}

// newLoop is a loop over a fresh workspace and SQLite store, reading
// transcripts from the workspace's folder.
func newLoop(t *testing.T) *Loop {
	t.Helper()
	dir := t.TempDir()
	w := workspace.New(dir)
	if _, err := w.Init(); err != nil {
		t.Fatal(err)
	}
	w.Session = "s1"
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	w.Now = func() time.Time { return now }
	db := sqlite.NewDB(filepath.Join(dir, "store.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := &Stores{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db),
		Inscription: sqlite.NewInscriptionStore(db), Frames: sqlite.NewFrameStore(db), Missions: sqlite.NewMissionStore(db),
		Engagements: sqlite.NewEngagementStore(db)}
	st.Import = struct {
		cairn.InscriptionStore
		cairn.LineStore
	}{st.Inscription, st.Lines}
	return &Loop{Workspace: w, Wd: dir, Now: w.Now, Folders: []string{dir}, ExhaustionRun: cairn.DefaultExhaustionRun,
		Open: func() (*Stores, error) { return st, nil }}
}

func handle(t *testing.T, l *Loop, ev Event) Reply {
	t.Helper()
	r, err := l.Handle(context.Background(), ev)
	if err != nil {
		t.Fatalf("%+v: %v", ev, err)
	}
	return r
}

// TestStart_GivenOnce: every harness's session starts from the assembled
// context; a resume of a conversation that was given it is told nothing
// when nothing changed but its own end's checkpoint (issue #42, 2g), the
// lines of a change someone else made, and after a compaction (which
// dropped it) the whole again.
func TestStart_GivenOnce(t *testing.T) {
	for _, h := range harnesses {
		t.Run(h, func(t *testing.T) {
			l := newLoop(t)
			ev := Event{Kind: Start, Harness: h, Session: "s1", Source: FromNew}
			if r := handle(t, l, ev); !strings.Contains(r.Agent, "<context>") || r.Person != "" {
				t.Fatalf("a new session is told %q, person %q; want the context", r.Agent, r.Person)
			}
			if err := l.checkpointExit("Session s1 ended (other) after 2 rounds", "session end (other)"); err != nil {
				t.Fatal(err)
			}
			ev.Source = FromResume
			if r := handle(t, l, ev); r != (Reply{}) {
				t.Errorf("a resume after its own end is told %+v, want nothing", r)
			}
			if _, err := l.Workspace.AddTodo("Rotate the session keys", "", ""); err != nil {
				t.Fatal(err)
			}
			if r := handle(t, l, ev); !strings.Contains(r.Agent, "Rotate the session keys") || strings.Contains(r.Agent, "<context>") {
				t.Errorf("a resume after a todo was added is told %q, want the todo's line alone", r.Agent)
			}
			ev.Source = FromCompact
			if r := handle(t, l, ev); !strings.Contains(r.Agent, "<context>") {
				t.Errorf("after a compaction the session is told %q, want the whole context", r.Agent)
			}
		})
	}
}

// TestPrompt_SuggestsOnce: a prompt that lists three tasks is answered
// with the plan suggestion, once, for every harness.
func TestPrompt_SuggestsOnce(t *testing.T) {
	for _, h := range harnesses {
		t.Run(h, func(t *testing.T) {
			l := newLoop(t)
			ev := Event{Kind: Prompt, Harness: h, Session: "s1", Transcript: filepath.Join(l.Wd, "none.jsonl"),
				Prompt: "next:\n1. add invoices\n2. add payments\n3. write the billing tests"}
			if r := handle(t, l, ev); !strings.HasPrefix(r.Agent, "cairn suggests plan: ") {
				t.Fatalf("the prompt is answered %q, want the plan suggestion", r.Agent)
			}
			if r := handle(t, l, ev); r != (Reply{}) {
				t.Errorf("the same prompt again is answered %+v, want nothing: a rule speaks once per frame", r)
			}
		})
	}
}

// TestGeminiPrompt: Gemini CLI's BeforeAgent prompt carries the client's
// context blocks; the loop judges the person's words alone.
func TestGeminiPrompt(t *testing.T) {
	l := newLoop(t)
	in := hookInput(t, `{"session_id":"s1","hook_event_name":"BeforeAgent","prompt":"<session_context>\n1. a\n2. b\n3. c\n</session_context>\nfix the login"}`)
	ev := FromGemini(in)
	if ev.Kind != Prompt || ev.Harness != Gemini || strings.Contains(ev.Prompt, "session_context") {
		t.Fatalf("BeforeAgent is %+v", ev)
	}
	if r := handle(t, l, ev); r.Agent != "" {
		t.Errorf("the client's own context was judged as the prompt: %q", r.Agent)
	}
}

// TestSubagent: a sub-agent call records a hand-off, the sub-agent is
// told its own cairn session and its task, and its last answer becomes the
// hand-off's result.
func TestSubagent(t *testing.T) {
	l := newLoop(t)
	input, _ := json.Marshal(map[string]string{"description": "Count", "prompt": "count the lines of main.go"})
	handle(t, l, Event{Kind: ToolCall, Harness: ClaudeCode, Session: "s1", Tool: "Task", ToolInput: input})
	r := handle(t, l, Event{Kind: SubagentStart, Harness: ClaudeCode, Session: "s1", Agent: "a7"})
	if !strings.Contains(r.Agent, "hand-off H-001 for session s1") || !strings.Contains(r.Agent, "--session s1-agent-a7") {
		t.Errorf("the sub-agent is told %q", r.Agent)
	}
	handle(t, l, Event{Kind: SubagentStop, Harness: ClaudeCode, Session: "s1", Agent: "a7", LastAnswer: "412 lines"})
	state, err := l.Workspace.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	if len(state.Handoffs) != 1 || state.Handoffs[0].Task != "Count: count the lines of main.go" || state.Handoffs[0].Result != "412 lines" {
		data, _ := json.Marshal(state.Handoffs)
		t.Errorf("hand-offs are %s", data)
	}
}

// TestEnd_Checkpoints: a session's end, for every harness, inscribes the
// transcript and writes the exit checkpoint naming the session and its
// rounds on the board.
func TestEnd_Checkpoints(t *testing.T) {
	sample, err := os.ReadFile("../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range harnesses {
		t.Run(h, func(t *testing.T) {
			l := newLoop(t)
			path := filepath.Join(l.Wd, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04.jsonl")
			if err := os.WriteFile(path, sample, 0o644); err != nil {
				t.Fatal(err)
			}
			handle(t, l, Event{Kind: End, Harness: h, Session: "s1", Transcript: path, Reason: "logout"})
			board, err := os.ReadFile(filepath.Join(l.Wd, cairn.BoardFile))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(board), "Session s1 ended (logout) after ") {
				t.Errorf("the board holds no exit checkpoint:\n%s", board)
			}
		})
	}
}

func hookInput(t *testing.T, s string) *claudecode.HookInput {
	t.Helper()
	in, err := claudecode.ReadHookInput(strings.NewReader(s), "")
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestOneMomentOneCommand (issue #42, 2d): a prompt crosses the pressure
// marks at the point where the client compacts, and the compaction lands
// on the same prompt: the note, the checkpoint and the line after the
// compaction name one revived session, exported once.
func TestOneMomentOneCommand(t *testing.T) {
	l, ev, exported := fullSession(t)
	note := handle(t, l, ev).Agent
	ev.Kind, ev.Trigger = PreCompact, "auto"
	handle(t, l, ev)
	ev.Kind, ev.Source = Start, FromCompact
	after := handle(t, l, ev).Agent
	if len(*exported) != 1 {
		t.Fatalf("%d revived sessions exported, want 1: %v", len(*exported), *exported)
	}
	command := (*exported)[0]
	if !strings.Contains(note, "Command: "+command) || strings.Contains(note, "cairn revive") {
		t.Errorf("the pressure note does not name the one command %q:\n%s", command, note)
	}
	if !strings.Contains(after, command) {
		t.Errorf("the line after the compaction does not name %q:\n%s", command, after)
	}
}

// TestNotesNameTheirSession (issue #42, 2c): every cairn command a
// pressure note gives names the session it acts on.
func TestNotesNameTheirSession(t *testing.T) {
	const session = "0d0d0d0d-0000-4000-8000-000000000001"
	occ := &cairn.Occupancy{Tokens: 150_000, Window: cairn.Window{Size: 200_000, CompactAt: 167_000}}
	weight := &surgery.FramesWeight{Frames: []string{"a"}, Rounds: 3, Tokens: 60_000, Held: 150_000}
	command := regexp.MustCompile(`cairn (pop|checkpoint|inject|revive|compress-before|extract)\b[^)\n]*`)
	for name, note := range map[string]string{
		"advise":   pressureNote(occ, 85, session, nil, nil),
		"collapse": pressureNote(occ, 85, session, nil, &collapseNote{weight, "claude --resume X"}),
		"full":     pressureNote(occ, 85, session, nil, &collapseNote{nil, "claude --resume X"}),
	} {
		cmds := command.FindAllString(note, -1)
		if len(cmds) == 0 {
			t.Errorf("%s: no cairn command in %q", name, note)
		}
		for _, c := range cmds {
			if !strings.Contains(c, session) {
				t.Errorf("%s: %q does not name the session it acts on", name, c)
			}
		}
	}
}
