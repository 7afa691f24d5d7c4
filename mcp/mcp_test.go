package mcp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	cairnmcp "github.com/cairn-dev/cairn/mcp"
	"github.com/cairn-dev/cairn/mock"
	"github.com/cairn-dev/cairn/retention"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/storetest"
	"github.com/cairn-dev/cairn/workspace"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MustConnect serves s over an in-memory transport and returns a client
// session connected to it.
func MustConnect(tb testing.TB, s *cairnmcp.Server) *sdk.ClientSession {
	tb.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// MustServer returns a server over a fresh store and workspace.
func MustServer(tb testing.TB) *cairnmcp.Server {
	tb.Helper()
	dir := tb.TempDir()
	db := sqlite.NewDB(filepath.Join(dir, ".cairn", "cairn.db"))
	if err := os.MkdirAll(filepath.Join(dir, ".cairn"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	now := func() time.Time { return time.Date(2026, 3, 19, 10, 23, 0, 0, time.UTC) }
	w := workspace.New(dir)
	w.Now = now
	if _, err := w.Init(); err != nil {
		tb.Fatal(err)
	}
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: claudecode.Format{}}
	if rep, err := im.Import(context.Background(), []string{"../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl"}); err != nil || rep.Failed > 0 {
		tb.Fatalf("import: %v", err)
	}
	return &cairnmcp.Server{Frames: sqlite.NewFrameStore(db), Missions: sqlite.NewMissionStore(db),
		Rounds: sqlite.NewRoundStore(db), Searcher: sqlite.NewSearcher(db), Workspace: w, Now: now,
		Sessions: sqlite.NewSessionStore(db), Lines: sqlite.NewLineStore(db)}
}

// call calls a tool and returns its text and whether it was a tool error.
func call(tb testing.TB, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String(), res.IsError
}

func TestTools(t *testing.T) {
	s := MustServer(t)
	cs := MustConnect(t, s)

	t.Run("List", func(t *testing.T) {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		want := "push pop plan context search checkpoint engage state inject"
		if got := strings.Join(names, " "); !sameWords(got, want) {
			t.Fatalf("tools %q, want %q", got, want)
		}
	})

	for _, c := range []struct {
		name    string
		tool    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"PushErrNoTitle", "push", map[string]any{"title": "", "criteria": "x"}, "invalid: ", true},
		{"Push", "push", map[string]any{"title": "Checkout", "criteria": "cart to paid order"}, "pushed f1 Checkout [in_progress]", false},
		{"Plan", "plan", map[string]any{"title": "Refunds", "criteria": "refund a paid order"}, "planned f2 Refunds [planned]", false},
		{"Context", "context", map[string]any{}, `<success-criteria>cart to paid order</success-criteria>`, false},
		{"ContextErrNoFrame", "context", map[string]any{"frame": "zz"}, `not found: No frame "zz".`, true},
		{"Pop", "pop", map[string]any{"results": "checkout works"}, "f1 Checkout [completed]", false},
		{"PopErrNothingCurrent", "pop", map[string]any{"results": "x"}, "not found: ", true},
		{"Search", "search", map[string]any{"query": "migration"}, `5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01 round `, false},
		{"SearchToolCall", "search", map[string]any{"query": "benchtime"}, `5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01 round 3.2 2026-11-22T03:36Z tool-use Bash`, false},
		{"InjectStep", "inject", map[string]any{"session": "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", "round": 3, "step": 2}, "# inject · round 3 step 2", false},
		{"SearchNone", "search", map[string]any{"query": "zyzzyva"}, `No round matches "zyzzyva".`, false},
		{"SearchAgent", "search", map[string]any{"query": "migration", "agent": "claude-code"}, `5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01 round `, false},
		{"SearchAgentNone", "search", map[string]any{"query": "migration", "agent": "codex"}, `No round matches "migration".`, false},
		{"SearchErrAgent", "search", map[string]any{"query": "migration", "agent": "nosuch"}, "invalid: agent must be", true},
		{"SearchErrEmpty", "search", map[string]any{"query": ""}, "invalid: ", true},
		{"Checkpoint", "checkpoint", map[string]any{"done": "Checkout", "next": "Refunds"}, "Checkpoint written on board.md.", false},
		{"CheckpointErrEmpty", "checkpoint", map[string]any{"done": ""}, "invalid: ", true},
		{"EngageErrMissing", "engage", map[string]any{"to": "nowhere"}, "not found: ", true},
		{"State", "state", map[string]any{"task": "refunds", "next": []string{"mail the buyer"}}, `"current_task": "refunds"`, false},
		{"StateShow", "state", map[string]any{}, `"mail the buyer"`, false},
		{"Inject", "inject", map[string]any{"session": "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", "round": 2}, "## Round 002", false},
		{"InjectRun", "inject", map[string]any{"session": "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", "ref": "3.1-3.2"}, "# inject · round 3 steps 1 to 2", false},
		{"InjectRefAcrossRounds", "inject", map[string]any{"session": "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", "ref": "3.2-4.1"}, "invalid: A run of steps lies in one round", true},
		{"InjectThinking", "inject", map[string]any{"session": "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", "round": 2}, "Look at the existing migrations to get the next number", false},
		{"InjectPartial", "inject", map[string]any{"session": "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", "round": 2, "fidelity": "partial"}, "[thinking · 73 chars — cairn inject 5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01 2]", false},
		{"InjectErrFidelity", "inject", map[string]any{"session": "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", "round": 2, "fidelity": "most"}, "invalid: ", true},
		{"InjectErrSession", "inject", map[string]any{"session": "nope", "round": 1}, `not found: No session matches "nope".`, true},
		{"InjectErrRound", "inject", map[string]any{"session": "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", "round": 99}, `not found: `, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, isErr := call(t, cs, c.tool, c.args)
			if isErr != c.isError || !strings.Contains(got, c.want) {
				t.Fatalf("%s: got %q (error %v), want %q (error %v)", c.tool, got, isErr, c.want, c.isError)
			}
		})
	}

	t.Run("Engage", func(t *testing.T) {
		if err := os.Mkdir(filepath.Join(s.Workspace.Root, "refunds"), 0o755); err != nil {
			t.Fatal(err)
		}
		got, isErr := call(t, cs, "engage", map[string]any{"to": "refunds", "why": "next frame"})
		if isErr || !strings.Contains(got, "Moved . → refunds") {
			t.Fatalf("engage: %q (error %v)", got, isErr)
		}
	})
}

// TestCap pins that an output over MaxChars is cut and says so.
func TestCap(t *testing.T) {
	s := MustServer(t)
	s.MaxChars = 300
	cs := MustConnect(t, s)
	got, isErr := call(t, cs, "state", map[string]any{"next": []string{strings.Repeat("long step ", 60)}})
	if isErr || len(got) > 300 || !strings.Contains(got, "…[cut: 200 of ") {
		t.Fatalf("state: %d chars, %q", len(got), got)
	}
}

// TestNoWorkspace pins that the workspace tools say there is none.
func TestNoWorkspace(t *testing.T) {
	s := MustServer(t)
	s.Workspace, s.Sessions = nil, nil
	cs := MustConnect(t, s)
	got, isErr := call(t, cs, "checkpoint", map[string]any{"done": "x"})
	if !isErr || !strings.Contains(got, "No cairn workspace here") {
		t.Fatalf("checkpoint: %q (error %v)", got, isErr)
	}
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "inject", Arguments: map[string]any{}}); err == nil {
		t.Fatal("inject without Inject: want no such tool")
	}
}

func sameWords(a, b string) bool {
	x, y := strings.Fields(a), strings.Fields(b)
	if len(x) != len(y) {
		return false
	}
	seen := map[string]int{}
	for _, w := range x {
		seen[w]++
	}
	for _, w := range y {
		if seen[w]--; seen[w] < 0 {
			return false
		}
	}
	return true
}

// TestSession pins that frames pushed or planned through the tools carry
// the server's session, and none when it has none.
func TestSession(t *testing.T) {
	ctx := context.Background()
	const id = "0d0d0d0d-0000-4000-8000-000000000001"
	s := MustServer(t)
	s.Session = id
	cs := MustConnect(t, s)
	if got, isErr := call(t, cs, "push", map[string]any{"title": "Checkout", "criteria": "cart to paid order"}); isErr {
		t.Fatal(got)
	}
	if got, isErr := call(t, cs, "plan", map[string]any{"title": "Refunds", "criteria": "refund a paid order"}); isErr {
		t.Fatal(got)
	}
	s.Session = ""
	if got, isErr := call(t, cs, "plan", map[string]any{"title": "Invoices", "criteria": "a PDF per order"}); isErr {
		t.Fatal(got)
	}
	frames, err := s.Frames.FindFrames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range frames {
		got = append(got, f.Title+"="+f.SessionID)
	}
	if got, want := strings.Join(got, " "), "Checkout="+id+" Refunds="+id+" Invoices="; got != want {
		t.Fatalf("sessions %s, want %s", got, want)
	}
}

// TestInternalError: a store's failure reaches the agent as a tool error
// with the store's message, and an error that is not a cairn.Error (a
// driver's, had a backend let one through) as a generic one: never SQL
// or driver text.
func TestInternalError(t *testing.T) {
	translated := &cairn.Error{Code: cairn.EINTERNAL, Message: "The store /w/.cairn/cairn.db is damaged or not a cairn store: restore it from a copy, or move it aside and import again.",
		Err: errors.New("database disk image is malformed (11)")}
	for _, c := range []struct {
		err  error
		want string
	}{
		{translated, "failed: The store /w/.cairn/cairn.db is damaged"},
		{errors.New("SQL logic error: no such table: frames (1)"), "failed: Internal error."},
	} {
		s := MustServer(t)
		s.Frames = &mock.FrameStore{FindFramesFn: func(context.Context) ([]*cairn.Frame, error) { return nil, c.err }}
		cs := MustConnect(t, s)
		for _, tool := range []struct {
			name string
			args map[string]any
		}{{"push", map[string]any{"title": "T", "criteria": "c"}}, {"context", map[string]any{}}} {
			got, isErr := call(t, cs, tool.name, tool.args)
			if !isErr || !strings.HasPrefix(got, c.want) || storetest.DriverText(got) != "" {
				t.Errorf("%s on %v: %q (error %v), want a tool error starting %q", tool.name, c.err, got, isErr, c.want)
			}
		}
	}
}

// TestRetentionTool: with a measure handed in, the retention tool prints
// its report as `cairn eval retention` does; without one it is not listed.
func TestRetentionTool(t *testing.T) {
	s := MustServer(t)
	s.Retention = func(_ context.Context, session string) (*retention.Report, error) {
		if session != "5f0c2a1e" {
			return nil, cairn.Errorf(cairn.ENOTFOUND, "No session %s.", session)
		}
		return &retention.Report{Session: session, Scores: []*retention.Score{retention.Measure(nil, nil, &retention.Variant{Name: "revive", Tokens: 51000})}}, nil
	}
	cs := MustConnect(t, s)
	if got, isErr := call(t, cs, "retention", map[string]any{"session": "5f0c2a1e"}); isErr || !strings.Contains(got, "revive") || !strings.Contains(got, "51000") {
		t.Errorf("retention: %q (error %v)", got, isErr)
	}
	if got, isErr := call(t, cs, "retention", map[string]any{"session": "nope"}); !isErr || !strings.HasPrefix(got, "not found: ") {
		t.Errorf("retention of an unknown session: %q (error %v)", got, isErr)
	}
}

// TestPopping: the pop tool calls Popping before it drafts (the CLI's
// live import of the session, so a frame pushed and popped inside one
// prompt has steps to draft from) and ends with what it returns once
// the frame is popped (the CLI's weight of the finished frames).
func TestPopping(t *testing.T) {
	s := MustServer(t)
	var order []string
	s.Popping = func(_ context.Context, id string) func(context.Context) string {
		f, err := s.Frames.FindFrameByID(context.Background(), id)
		if err != nil || f.Status != cairn.FrameInProgress {
			t.Errorf("Popping called with frame %s %+v, %v; want it in progress", id, f, err)
		}
		order = append(order, "before "+id)
		return func(context.Context) string {
			order = append(order, "after")
			return "The finished frames (p) hold 40% of the context.\n"
		}
	}
	cs := MustConnect(t, s)
	if got, isErr := call(t, cs, "push", map[string]any{"title": "Parser", "criteria": "tests pass"}); isErr {
		t.Fatalf("push: %s", got)
	}
	got, isErr := call(t, cs, "pop", map[string]any{"results": "done"})
	if isErr || !strings.HasPrefix(got, "f1 Parser [completed]\n") || !strings.HasSuffix(got, "The finished frames (p) hold 40% of the context.\n") {
		t.Errorf("pop: %q (error %v)", got, isErr)
	}
	if len(order) != 2 || order[1] != "after" {
		t.Errorf("Popping's calls: %q", order)
	}
}
