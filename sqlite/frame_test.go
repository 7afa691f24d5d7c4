package sqlite_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn"
	"cairn/sqlite"
)

var now = time.Date(2026, 3, 19, 10, 0, 0, 0, time.UTC)

func stack(db *sqlite.DB) *cairn.Stack {
	return &cairn.Stack{Frames: sqlite.NewFrameStore(db), Now: func() time.Time { return now }}
}

func TestFrameStore(t *testing.T) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		db := MustOpenDB(t)
		s := stack(db)
		c, err := s.Push(ctx, "", &cairn.Frame{Title: "Build the app", SuccessCriteria: "auth and API"}, "ann")
		if err != nil {
			t.Fatal(err)
		}
		root := c.Create[0]
		if root.ID != "f1" || root.Version != 1 || root.CreatedAt != now {
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
		got, err := sqlite.NewFrameStore(db).FindFrameByID(ctx, "auth")
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != cairn.FrameCompleted || got.Version != 3 || got.Artifacts[0] != "src/auth.go" || got.Decisions[0] != "HS256" ||
			got.StartedAt != now || got.EndedAt != now || got.Owner != "ann" {
			t.Fatalf("%+v", got)
		}
		frames, err := sqlite.NewFrameStore(db).FindFrames(ctx)
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
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := sqlite.NewFrameStore(MustOpenDB(t)).FindFrameByID(ctx, "nope"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Fatal(err)
		}
	})
	t.Run("ErrStaleVersion", func(t *testing.T) {
		db := MustOpenDB(t)
		fs := sqlite.NewFrameStore(db)
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
		fs := sqlite.NewFrameStore(MustOpenDB(t))
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
		db := MustOpenDB(t)
		s := stack(db)
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

func TestTagFrameRounds(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	in := &cairn.Inscription{Session: &cairn.Session{ID: "s1", Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport}}
	for seq := 1; seq <= 3; seq++ {
		in.Rounds = append(in.Rounds, &cairn.Round{SessionID: "s1", Seq: seq, FirstLine: seq, LastLine: seq})
	}
	if err := sqlite.NewInscriptionStore(db).Inscribe(ctx, in); err != nil {
		t.Fatal(err)
	}
	s := stack(db)
	s.Push(ctx, "", &cairn.Frame{ID: "a", Title: "A", SuccessCriteria: "c"}, "")
	s.Push(ctx, "a", &cairn.Frame{ID: "b", Title: "B", SuccessCriteria: "c"}, "")
	fs := sqlite.NewFrameStore(db)
	if err := fs.TagFrameRounds(ctx, "a", []cairn.RoundRef{{SessionID: "s1", Seq: 1}, {SessionID: "s1", Seq: 2}}); err != nil {
		t.Fatal(err)
	}
	if err := fs.TagFrameRounds(ctx, "b", []cairn.RoundRef{{SessionID: "s1", Seq: 2}, {SessionID: "s1", Seq: 3}}); err != nil {
		t.Fatal(err)
	}
	if err := fs.TagFrameRounds(ctx, "nope", []cairn.RoundRef{{SessionID: "s1", Seq: 1}}); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatal(err)
	}
	rounds := sqlite.NewRoundStore(db)
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

func TestMissionStore(t *testing.T) {
	ctx := context.Background()
	ms := sqlite.NewMissionStore(MustOpenDB(t))
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

// planClaimable plans n ready frames under one in-progress root.
func planClaimable(tb testing.TB, db *sqlite.DB, n int) {
	tb.Helper()
	ctx := context.Background()
	s := stack(db)
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

// claimAll claims frames for owner until none is ready.
func claimAll(ctx context.Context, s *cairn.Stack, owner string, claimed func(id string)) error {
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

// checkClaims fails unless every frame was claimed exactly once.
func checkClaims(t *testing.T, claims []string, n int) {
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

func TestClaimConcurrentGoroutines(t *testing.T) {
	const frames, agents = 60, 8
	path := filepath.Join(t.TempDir(), "cairn.db")
	planClaimable(t, MustOpenDBAt(t, path), frames)
	var mu sync.Mutex
	var claims []string
	var wg sync.WaitGroup
	for a := range agents {
		// Each agent has its own connection pools, as separate agents would.
		s := stack(MustOpenDBAt(t, path))
		wg.Go(func() {
			err := claimAll(context.Background(), s, fmt.Sprintf("agent%d", a), func(id string) {
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
	checkClaims(t, claims, frames)
}

// TestClaimConcurrentProcesses re-executes the test binary as several
// claiming processes on one store file.
func TestClaimConcurrentProcesses(t *testing.T) {
	if path := os.Getenv("CAIRN_CLAIM_STORE"); path != "" {
		db := sqlite.NewDB(path)
		if err := db.Open(); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		w := bufio.NewWriter(os.Stdout)
		defer w.Flush()
		owner := os.Getenv("CAIRN_CLAIM_OWNER")
		if err := claimAll(context.Background(), &cairn.Stack{Frames: sqlite.NewFrameStore(db)}, owner, func(id string) {
			fmt.Fprintln(w, "claimed", id)
		}); err != nil {
			t.Fatal(err)
		}
		return
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	const frames, procs = 40, 4
	path := filepath.Join(t.TempDir(), "cairn.db")
	db := MustOpenDBAt(t, path)
	planClaimable(t, db, frames)
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestClaimConcurrentProcesses$", "-test.v")
		cmd.Env = append(os.Environ(), "CAIRN_CLAIM_STORE="+path, fmt.Sprintf("CAIRN_CLAIM_OWNER=proc%d", p))
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	var claims []string
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
		for _, line := range strings.Split(outs[i].String(), "\n") {
			if id, ok := strings.CutPrefix(line, "claimed "); ok {
				claims = append(claims, id)
			}
		}
	}
	checkClaims(t, claims, frames)
	// The store agrees: every frame is in progress, owned by one process.
	tree, err := stack(db).Tree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	owners := make(map[string]bool)
	for _, f := range tree.Frames() {
		if f.Status != cairn.FrameInProgress {
			t.Errorf("frame %s is %s", f.ID, f.Status)
		}
		owners[f.Owner] = true
	}
	var names []string
	for o := range owners {
		names = append(names, o)
	}
	sort.Strings(names)
	t.Logf("claimed by %v", names)
}
