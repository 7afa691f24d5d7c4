package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// now is the clock of the frame operations under test.
var now = time.Date(2026, 3, 19, 10, 0, 0, 0, time.UTC)

func stack(st *Store) *cairn.Stack {
	return &cairn.Stack{Frames: st.Frames, Now: func() time.Time { return now }}
}

// testFrameStores runs the frame and mission tests if the backend has them.
func testFrameStores(t *testing.T, open Open) {
	if probe := open(t); probe.Frames == nil || probe.Missions == nil {
		t.Skip("the backend has no FrameStore or MissionStore")
	}
	t.Run("Frames", func(t *testing.T) { testFrames(t, open) })
	t.Run("TagFrameRounds", func(t *testing.T) { testTagFrameRounds(t, open) })
	t.Run("Missions", func(t *testing.T) { testMissions(t, open) })
	t.Run("ClaimConcurrent", func(t *testing.T) { testClaimConcurrent(t, open) })
}

func testFrames(t *testing.T, open Open) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		st := open(t)
		s := stack(st)
		c, err := s.Push(ctx, "", &cairn.Frame{Title: "Build the app", SuccessCriteria: "auth and API"}, "ann")
		if err != nil {
			t.Fatal(err)
		}
		root := c.Create[0]
		if root.ID != "f1" || root.Version != 1 || root.CreatedAt.IsZero() {
			t.Fatalf("%+v", root)
		}
		if _, err := s.Plan(ctx, "f1", []*cairn.Frame{
			{ID: "auth", Title: "Auth", SuccessCriteria: "JWT login"},
			{Title: "API", SuccessCriteria: "CRUD", DependsOn: []string{"auth"}},
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Activate(ctx, "auth", "ann"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Pop(ctx, "auth", cairn.FrameResults{Status: cairn.FrameCompleted, Results: "JWT auth",
			Artifacts: []string{"src/auth.go"}, Decisions: []string{"HS256"}}); err != nil {
			t.Fatal(err)
		}
		got, err := st.Frames.FindFrameByID(ctx, "auth")
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != cairn.FrameCompleted || got.Version != 3 || got.Artifacts[0] != "src/auth.go" || got.Decisions[0] != "HS256" ||
			got.StartedAt != now || got.EndedAt != now || got.Owner != "ann" {
			t.Fatalf("%+v", got)
		}
		frames, err := st.Frames.FindFrames(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range frames {
			ids = append(ids, f.ID+"<"+f.ParentID+">"+strings.Join(f.DependsOn, ","))
		}
		if got, want := strings.Join(ids, " "), "f1<> auth<f1> f3<f1>auth"; got != want {
			t.Fatalf("frames %s, want %s", got, want)
		}
	})
	t.Run("SessionID", func(t *testing.T) {
		// A frame keeps the session that created it; activating it from
		// another session changes its owner, not its session, and an
		// update cannot rewrite it.
		st := open(t)
		s := stack(st)
		const pusher, planner = "0d0d0d0d-0000-4000-8000-000000000001", "0e0e0e0e-0000-4000-8000-000000000002"
		if _, err := s.Push(ctx, "", &cairn.Frame{ID: "app", Title: "App", SuccessCriteria: "ships", SessionID: pusher}, "ann"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Plan(ctx, "app", []*cairn.Frame{
			{ID: "auth", Title: "Auth", SuccessCriteria: "login", SessionID: planner},
			{ID: "api", Title: "API", SuccessCriteria: "CRUD"},
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Activate(ctx, "auth", "bob"); err != nil {
			t.Fatal(err)
		}
		api, err := st.Frames.FindFrameByID(ctx, "api")
		if err != nil {
			t.Fatal(err)
		}
		api.SessionID = pusher
		if err := st.Frames.ApplyFrameChange(ctx, &cairn.FrameChange{Update: []*cairn.Frame{api}}); err != nil {
			t.Fatal(err)
		}
		frames, err := st.Frames.FindFrames(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range frames {
			got = append(got, f.ID+"="+f.SessionID+"@"+f.Owner)
		}
		if got, want := strings.Join(got, " "), "app="+pusher+"@ann auth="+planner+"@bob api=@"; got != want {
			t.Fatalf("sessions %s, want %s", got, want)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := open(t).Frames.FindFrameByID(ctx, "nope"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Fatal(err)
		}
	})
	t.Run("ErrStaleVersion", func(t *testing.T) {
		fs := open(t).Frames
		c := &cairn.FrameChange{Create: []*cairn.Frame{{Title: "A", SuccessCriteria: "c", Status: cairn.FramePlanned}}}
		if err := fs.ApplyFrameChange(ctx, c); err != nil {
			t.Fatal(err)
		}
		stale, _ := fs.FindFrameByID(ctx, "f1")
		fresh, _ := fs.FindFrameByID(ctx, "f1")
		fresh.Title = "B"
		if err := fs.ApplyFrameChange(ctx, &cairn.FrameChange{Update: []*cairn.Frame{fresh}}); err != nil {
			t.Fatal(err)
		}
		stale.Title = "C"
		if err := fs.ApplyFrameChange(ctx, &cairn.FrameChange{Update: []*cairn.Frame{stale}}); cairn.ErrorCode(err) != cairn.ECONFLICT {
			t.Fatalf("stale update: %v", err)
		}
		// A stale guard fails the whole change: nothing is created.
		err := fs.ApplyFrameChange(ctx, &cairn.FrameChange{Guard: []*cairn.Frame{stale},
			Create: []*cairn.Frame{{Title: "D", SuccessCriteria: "c", Status: cairn.FramePlanned, ParentID: "f1"}}})
		if cairn.ErrorCode(err) != cairn.ECONFLICT {
			t.Fatalf("stale guard: %v", err)
		}
		if frames, _ := fs.FindFrames(ctx); len(frames) != 1 || frames[0].Title != "B" {
			t.Fatalf("after conflicts: %d frames, %+v", len(frames), frames[0])
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		fs := open(t).Frames
		err := fs.ApplyFrameChange(ctx, &cairn.FrameChange{Create: []*cairn.Frame{{Title: "A", Status: cairn.FramePlanned}}})
		if cairn.ErrorCode(err) != cairn.EINVALID {
			t.Fatal(err)
		}
		err = fs.ApplyFrameChange(ctx, &cairn.FrameChange{Create: []*cairn.Frame{{Title: "A", SuccessCriteria: "c", Status: cairn.FramePlanned, ParentID: "nope"}}})
		if cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Fatal(err)
		}
	})
	t.Run("InvalidateCascadeIsAtomic", func(t *testing.T) {
		st := open(t)
		s := stack(st)
		s.Push(ctx, "", &cairn.Frame{ID: "b", Title: "B", SuccessCriteria: "c"}, "")
		s.Plan(ctx, "b", []*cairn.Frame{{ID: "b1", Title: "B1", SuccessCriteria: "c"}, {ID: "b2", Title: "B2", SuccessCriteria: "c"}})
		s.Plan(ctx, "b1", []*cairn.Frame{{ID: "b11", Title: "B11", SuccessCriteria: "c"}})
		if _, err := s.Activate(ctx, "b2", ""); err != nil {
			t.Fatal(err)
		}
		c, err := s.Invalidate(ctx, "b")
		if err != nil || len(c.Warnings) != 1 {
			t.Fatal(c, err)
		}
		tree, _ := s.Tree(ctx)
		var got []string
		tree.Walk(func(f *cairn.Frame, depth int) { got = append(got, f.ID+":"+string(f.Status)) })
		if want := "b:invalidated b1:invalidated b11:invalidated b2:in_progress"; strings.Join(got, " ") != want {
			t.Fatalf("%s, want %s", strings.Join(got, " "), want)
		}
	})
}

func testTagFrameRounds(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	in := &cairn.Inscription{Session: &cairn.Session{ID: "s1", Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport}}
	for seq := 1; seq <= 3; seq++ {
		in.Rounds = append(in.Rounds, &cairn.Round{SessionID: "s1", Seq: seq, FirstLine: seq, LastLine: seq})
	}
	if err := st.Inscription.Inscribe(ctx, in); err != nil {
		t.Fatal(err)
	}
	s := stack(st)
	s.Push(ctx, "", &cairn.Frame{ID: "a", Title: "A", SuccessCriteria: "c"}, "")
	s.Push(ctx, "a", &cairn.Frame{ID: "b", Title: "B", SuccessCriteria: "c"}, "")
	fs := st.Frames
	if err := fs.TagFrameRounds(ctx, "a", []cairn.RoundRef{{SessionID: "s1", Seq: 1}, {SessionID: "s1", Seq: 2}}); err != nil {
		t.Fatal(err)
	}
	if err := fs.TagFrameRounds(ctx, "b", []cairn.RoundRef{{SessionID: "s1", Seq: 2}, {SessionID: "s1", Seq: 3}}); err != nil {
		t.Fatal(err)
	}
	if err := fs.TagFrameRounds(ctx, "nope", []cairn.RoundRef{{SessionID: "s1", Seq: 1}}); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatal(err)
	}
	rounds := st.Rounds
	for frame, want := range map[string]string{"a": "1", "b": "2 3"} {
		rs, err := rounds.FindRounds(ctx, cairn.RoundFilter{FrameID: frame})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rs {
			got = append(got, fmt.Sprint(r.Seq))
			if r.FrameID != frame {
				t.Errorf("round %d tagged %q", r.Seq, r.FrameID)
			}
		}
		if strings.Join(got, " ") != want {
			t.Errorf("frame %s has rounds %v, want %s", frame, got, want)
		}
	}
	f, err := cairn.ActiveFrame(ctx, fs, "", now)
	if err != nil || f.ID != "b" {
		t.Fatal(f, err)
	}
}

func testMissions(t *testing.T, open Open) {
	ctx := context.Background()
	ms := open(t).Missions
	if _, err := ms.FindMission(ctx); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatal(err)
	}
	if err := ms.AddPhase(ctx, &cairn.Phase{Seq: 1, Name: "R", Task: "t", Reason: cairn.PhaseStart}); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatal(err)
	}
	m := &cairn.Mission{Text: "Report", Workspace: "/w", Progress: "started"}
	if err := ms.SetMission(ctx, m); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ name, task string }{{"RESEARCH", "find"}, {"SYNTHESIS", "write"}} {
		m, _ = ms.FindMission(ctx)
		next, err := cairn.NextPhase(m, p.name, p.task, []string{p.name + ".md"}, cairn.PhaseNext)
		if err != nil {
			t.Fatal(err)
		}
		if err := ms.AddPhase(ctx, next); err != nil {
			t.Fatal(err)
		}
	}
	m, err := ms.FindMission(ctx)
	if err != nil || m.Phase == nil || m.Phase.Name != "SYNTHESIS" || m.Phase.Seq != 2 || strings.Join(m.Phase.Outputs, ",") != "RESEARCH.md,SYNTHESIS.md" {
		t.Fatalf("%+v %+v %v", m, m.Phase, err)
	}
	if err := ms.AddPhase(ctx, &cairn.Phase{Seq: 2, Name: "X", Task: "t", Reason: cairn.PhaseNext}); cairn.ErrorCode(err) != cairn.ECONFLICT {
		t.Fatal(err)
	}
	if phases, _ := ms.FindPhases(ctx); len(phases) != 2 {
		t.Fatal(phases)
	}
}

// PlanClaimable plans n ready frames under one in-progress root, for tests
// of concurrent claims.
func PlanClaimable(tb testing.TB, st *Store, n int) {
	tb.Helper()
	ctx := context.Background()
	s := stack(st)
	if _, err := s.Push(ctx, "", &cairn.Frame{ID: "root", Title: "Root", SuccessCriteria: "all done"}, ""); err != nil {
		tb.Fatal(err)
	}
	var frames []*cairn.Frame
	for i := range n {
		frames = append(frames, &cairn.Frame{ID: fmt.Sprintf("t%03d", i), Title: "Task", SuccessCriteria: "c"})
	}
	if _, err := s.Plan(ctx, "root", frames); err != nil {
		tb.Fatal(err)
	}
}

// ClaimAll claims frames for owner until none is ready.
func ClaimAll(ctx context.Context, s *cairn.Stack, owner string, claimed func(id string)) error {
	for {
		f, err := s.Claim(ctx, owner)
		if cairn.ErrorCode(err) == cairn.ENOTFOUND {
			return nil
		} else if err != nil {
			return err
		}
		claimed(f.ID)
	}
}

// CheckClaims fails unless every one of n frames was claimed exactly once.
func CheckClaims(t *testing.T, claims []string, n int) {
	t.Helper()
	seen := make(map[string]int)
	for _, id := range claims {
		seen[id]++
	}
	for id, k := range seen {
		if k > 1 {
			t.Errorf("frame %s claimed %d times", id, k)
		}
	}
	if len(seen) != n {
		t.Errorf("%d frames claimed, want %d", len(seen), n)
	}
}

func testClaimConcurrent(t *testing.T, open Open) {
	const frames, agents = 60, 8
	st := open(t)
	PlanClaimable(t, st, frames)
	var mu sync.Mutex
	var claims []string
	var wg sync.WaitGroup
	for a := range agents {
		s := stack(st)
		wg.Go(func() {
			err := ClaimAll(context.Background(), s, fmt.Sprintf("agent%d", a), func(id string) {
				mu.Lock()
				claims = append(claims, id)
				mu.Unlock()
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	CheckClaims(t, claims, frames)
}
