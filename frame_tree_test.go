package cairn_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

var t0 = time.Date(2026, 3, 19, 10, 0, 0, 0, time.UTC)

// tree builds a tree from frames given as "id parent status [dep,dep]".
func tree(specs ...string) *cairn.FrameTree {
	var frames []*cairn.Frame
	for _, s := range specs {
		fs := strings.Fields(s)
		f := &cairn.Frame{ID: fs[0], Title: "Title " + fs[0], SuccessCriteria: "Criteria " + fs[0], Status: cairn.FrameStatus(fs[2])}
		if fs[1] != "-" {
			f.ParentID = fs[1]
		}
		if len(fs) > 3 {
			f.DependsOn = strings.Split(fs[3], ",")
		}
		if f.Status != cairn.FramePlanned {
			f.StartedAt = t0
		}
		if f.Status == cairn.FrameCompleted {
			f.Results = "done"
		}
		frames = append(frames, f)
	}
	return cairn.NewFrameTree(frames)
}

func ids(frames []*cairn.Frame) string {
	var out []string
	for _, f := range frames {
		out = append(out, f.ID+":"+string(f.Status))
	}
	return strings.Join(out, " ")
}

func TestCanTransition(t *testing.T) {
	allowed := map[cairn.FrameStatus][]cairn.FrameStatus{
		cairn.FramePlanned:     {cairn.FrameInProgress, cairn.FrameInvalidated},
		cairn.FrameInProgress:  {cairn.FrameCompleted, cairn.FrameFailed, cairn.FrameBlocked, cairn.FrameInvalidated},
		cairn.FrameBlocked:     {cairn.FrameInProgress, cairn.FrameFailed, cairn.FrameInvalidated},
		cairn.FrameCompleted:   {cairn.FrameInvalidated},
		cairn.FrameFailed:      {cairn.FrameInvalidated},
		cairn.FrameInvalidated: {},
	}
	for _, from := range cairn.FrameStatuses {
		for _, to := range cairn.FrameStatuses {
			if got, want := cairn.CanTransition(from, to), slices.Contains(allowed[from], to); got != want {
				t.Errorf("CanTransition(%s, %s) = %v, want %v", from, to, got, want)
			}
		}
	}
}

// TestTransitions drives every edge of the lifecycle through the
// operation that makes it, and checks that every other edge is refused.
func TestTransitions(t *testing.T) {
	res := cairn.FrameResults{Results: "it works"}
	ops := map[cairn.FrameStatus]func(tr *cairn.FrameTree) (*cairn.FrameChange, error){
		cairn.FrameInProgress: func(tr *cairn.FrameTree) (*cairn.FrameChange, error) { return tr.Activate("x", "ann", t0) },
		cairn.FrameCompleted: func(tr *cairn.FrameTree) (*cairn.FrameChange, error) {
			r := res
			r.Status = cairn.FrameCompleted
			return tr.Pop("x", r, t0)
		},
		cairn.FrameFailed: func(tr *cairn.FrameTree) (*cairn.FrameChange, error) {
			r := res
			r.Status = cairn.FrameFailed
			return tr.Pop("x", r, t0)
		},
		cairn.FrameBlocked: func(tr *cairn.FrameTree) (*cairn.FrameChange, error) {
			r := res
			r.Status = cairn.FrameBlocked
			return tr.Pop("x", r, t0)
		},
		cairn.FrameInvalidated: func(tr *cairn.FrameTree) (*cairn.FrameChange, error) { return tr.Invalidate("x", t0) },
	}
	for _, from := range cairn.FrameStatuses {
		for to, op := range ops {
			tr := tree("root - in_progress", "x root "+string(from))
			c, err := op(tr)
			if !cairn.CanTransition(from, to) {
				if code := cairn.ErrorCode(err); code != cairn.ECONFLICT {
					t.Errorf("%s → %s: error code %q (%v), want conflict", from, to, code, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s → %s: %v", from, to, err)
				continue
			}
			x := c.Update[len(c.Update)-1]
			if x.ID != "x" || x.Status != to {
				t.Errorf("%s → %s: changed %s", from, to, ids(c.Update))
			}
			if tr.Frame("x").Status != from {
				t.Errorf("%s → %s: the operation changed the tree it read", from, to)
			}
			if to == cairn.FrameInProgress && x.Owner != "ann" || to != cairn.FrameInProgress && x.EndedAt != t0 {
				t.Errorf("%s → %s: owner %q ended %v", from, to, x.Owner, x.EndedAt)
			}
		}
	}
}

func TestPush(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		c, err := tree("root - in_progress").Push("root", &cairn.Frame{Title: "Auth", SuccessCriteria: "login works"}, "ann", t0)
		if err != nil {
			t.Fatal(err)
		}
		f := c.Create[0]
		if f.ParentID != "root" || f.Status != cairn.FrameInProgress || f.StartedAt != t0 || f.Owner != "ann" || ids(c.Guard) != "root:in_progress" {
			t.Fatalf("pushed %+v guard %s", f, ids(c.Guard))
		}
	})
	t.Run("Root", func(t *testing.T) {
		if _, err := tree().Push("", &cairn.Frame{Title: "App", SuccessCriteria: "ships"}, "", t0); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ErrParentNotInProgress", func(t *testing.T) {
		for _, st := range []string{"planned", "completed", "blocked", "invalidated"} {
			_, err := tree("root - "+st).Push("root", &cairn.Frame{Title: "A", SuccessCriteria: "c"}, "", t0)
			if cairn.ErrorCode(err) != cairn.ECONFLICT {
				t.Errorf("under %s: %v", st, err)
			}
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, f := range []*cairn.Frame{
			{Title: "", SuccessCriteria: "c"},
			{Title: "A", SuccessCriteria: ""},
			{ID: "has space", Title: "A", SuccessCriteria: "c"},
			{Title: strings.Repeat("long ", 30), SuccessCriteria: "c"},
		} {
			if _, err := tree().Push("", f, "", t0); cairn.ErrorCode(err) != cairn.EINVALID {
				t.Errorf("%+v: %v", f, err)
			}
		}
	})
	t.Run("ErrIDTaken", func(t *testing.T) {
		_, err := tree("root - in_progress", "a root completed").Push("root", &cairn.Frame{ID: "a", Title: "A", SuccessCriteria: "c"}, "", t0)
		if cairn.ErrorCode(err) != cairn.ECONFLICT {
			t.Fatal(err)
		}
	})
	t.Run("WarnUnmetDependency", func(t *testing.T) {
		c, err := tree("root - in_progress", "a root planned").Push("root", &cairn.Frame{Title: "B", SuccessCriteria: "c", DependsOn: []string{"a"}}, "", t0)
		if err != nil || len(c.Warnings) != 1 {
			t.Fatalf("%v %v", c, err)
		}
	})
}

func TestPlan(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		c, err := tree("b - planned").Plan("b", []*cairn.Frame{
			{ID: "b1", Title: "CRUD", SuccessCriteria: "GET/POST"},
			{ID: "b2", Title: "Pagination", SuccessCriteria: "cursors", DependsOn: []string{"b1"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(c.Create); got != "b1:planned b2:planned" {
			t.Fatal(got)
		}
	})
	t.Run("ErrParentFinished", func(t *testing.T) {
		_, err := tree("b - completed").Plan("b", []*cairn.Frame{{Title: "x", SuccessCriteria: "c"}})
		if cairn.ErrorCode(err) != cairn.ECONFLICT {
			t.Fatal(err)
		}
	})
	t.Run("ErrMissingDependency", func(t *testing.T) {
		_, err := tree("b - planned").Plan("b", []*cairn.Frame{{Title: "x", SuccessCriteria: "c", DependsOn: []string{"nope"}}})
		if cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Fatal(err)
		}
	})
	t.Run("ErrCycle", func(t *testing.T) {
		_, err := tree("b - planned").Plan("b", []*cairn.Frame{
			{ID: "x", Title: "x", SuccessCriteria: "c", DependsOn: []string{"y"}},
			{ID: "y", Title: "y", SuccessCriteria: "c", DependsOn: []string{"x"}},
		})
		if cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), "cycle") {
			t.Fatal(err)
		}
	})
	t.Run("ErrDependsOnAncestor", func(t *testing.T) {
		_, err := tree("b - planned").Plan("b", []*cairn.Frame{{Title: "x", SuccessCriteria: "c", DependsOn: []string{"b"}}})
		if cairn.ErrorCode(err) != cairn.EINVALID {
			t.Fatal(err)
		}
	})
	t.Run("Replan", func(t *testing.T) {
		tr := tree("b - planned", "x b planned", "y b planned x")
		c, err := tr.Replan("x", cairn.Frame{Title: "New title"})
		if err != nil || c.Update[0].Title != "New title" || c.Update[0].SuccessCriteria != "Criteria x" {
			t.Fatal(c, err)
		}
		if _, err := tr.Replan("x", cairn.Frame{DependsOn: []string{"y"}}); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Fatalf("cycle through replan: %v", err)
		}
		if _, err := tree("x - in_progress").Replan("x", cairn.Frame{Title: "t"}); cairn.ErrorCode(err) != cairn.ECONFLICT {
			t.Fatalf("identity of a started frame: %v", err)
		}
	})
}

func TestActivateStartsPlannedAncestors(t *testing.T) {
	c, err := tree("root - in_progress", "b root planned", "b1 b planned").Activate("b1", "ann", t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(c.Update); got != "b:in_progress b1:in_progress" {
		t.Fatal(got)
	}
	if got := ids(c.Guard); got != "root:in_progress" {
		t.Fatal(got)
	}
	if _, err := tree("root - blocked", "b root planned").Activate("b", "", t0); cairn.ErrorCode(err) != cairn.ECONFLICT {
		t.Fatalf("under a blocked frame: %v", err)
	}
}

func TestPop(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		tr := tree("a - in_progress")
		c, err := tr.Pop("a", cairn.FrameResults{Status: cairn.FrameCompleted, Results: "JWT auth", ResultsCompacted: "JWT",
			Artifacts: []string{"src/auth.go", "src/auth.go"}, Decisions: []string{"HS256"}}, t0)
		if err != nil {
			t.Fatal(err)
		}
		f := c.Update[0]
		if f.Status != cairn.FrameCompleted || f.Results != "JWT auth" || f.Compacted() != "JWT" || len(f.Artifacts) != 1 || f.EndedAt != t0 {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("ErrCompletedWithoutResults", func(t *testing.T) {
		_, err := tree("a - in_progress").Pop("a", cairn.FrameResults{Status: cairn.FrameCompleted}, t0)
		if cairn.ErrorCode(err) != cairn.EINVALID {
			t.Fatal(err)
		}
	})
	t.Run("ErrStatus", func(t *testing.T) {
		_, err := tree("a - in_progress").Pop("a", cairn.FrameResults{Status: cairn.FramePlanned}, t0)
		if cairn.ErrorCode(err) != cairn.EINVALID {
			t.Fatal(err)
		}
	})
	t.Run("ErrChildInProgress", func(t *testing.T) {
		_, err := tree("a - in_progress", "a1 a in_progress").Pop("a", cairn.FrameResults{Status: cairn.FrameFailed}, t0)
		if cairn.ErrorCode(err) != cairn.ECONFLICT {
			t.Fatal(err)
		}
	})
	t.Run("WarnPlannedChildLeft", func(t *testing.T) {
		c, err := tree("a - in_progress", "a1 a planned").Pop("a", cairn.FrameResults{Status: cairn.FrameCompleted, Results: "r"}, t0)
		if err != nil || len(c.Warnings) != 1 {
			t.Fatal(c, err)
		}
	})
}

func TestInvalidateCascades(t *testing.T) {
	tr := tree(
		"b - in_progress",
		"b1 b planned", "b11 b1 planned",
		"b2 b in_progress", "b21 b2 planned", "b22 b2 completed",
		"b3 b blocked", "b4 b completed", "b5 b invalidated",
	)
	c, err := tr.Invalidate("b", t0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(c.Update), "b:invalidated b1:invalidated b11:invalidated b21:invalidated"; got != want {
		t.Fatalf("invalidated %s, want %s", got, want)
	}
	if len(c.Warnings) != 2 || !strings.Contains(c.Warnings[0], "b2") || !strings.Contains(c.Warnings[1], "b3") {
		t.Fatalf("warnings %q", c.Warnings)
	}
	if _, err := tree("x - invalidated").Invalidate("x", t0); cairn.ErrorCode(err) != cairn.ECONFLICT {
		t.Fatal(err)
	}
	if _, err := tr.Invalidate("nope", t0); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatal(err)
	}
}

func TestReady(t *testing.T) {
	tr := tree(
		"root - in_progress",
		"a root completed",
		"b root planned a", // waits on nothing unfinished, but has children
		"b1 b planned",
		"b2 b planned b1",  // waits on b1
		"c root planned d", // waits on d
		"d root planned",   // ready
		"e root blocked",   //
		"e1 e planned",     // under a blocked frame
		"f root planned x", // waits on an invalidated frame
		"x root invalidated",
		"g root planned", // ready: its only child is invalidated
		"g1 g invalidated",
		"h - planned z", // a planned root waiting on z
		"h1 h planned",  // so its child is not ready
		"z - planned",   // ready
	)
	if got, want := ids(tr.Ready()), "b1:planned d:planned g:planned z:planned"; got != want {
		t.Fatalf("ready %s, want %s", got, want)
	}
}

func TestCurrentAndActiveAt(t *testing.T) {
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	frames := []*cairn.Frame{
		{ID: "root", Status: cairn.FrameInProgress, Owner: "ann", StartedAt: at(0)},
		{ID: "a", ParentID: "root", Status: cairn.FrameCompleted, Owner: "ann", StartedAt: at(1), EndedAt: at(2)},
		{ID: "b", ParentID: "root", Status: cairn.FrameInProgress, Owner: "ann", StartedAt: at(3)},
		{ID: "c", ParentID: "root", Status: cairn.FrameInProgress, Owner: "bob", StartedAt: at(4)},
	}
	tr := cairn.NewFrameTree(frames)
	for _, c := range []struct {
		owner string
		want  string
	}{{"", "c"}, {"ann", "b"}, {"bob", "c"}, {"eve", ""}} {
		got := ""
		if f := tr.Current(c.owner); f != nil {
			got = f.ID
		}
		if got != c.want {
			t.Errorf("Current(%q) = %q, want %q", c.owner, got, c.want)
		}
	}
	for _, c := range []struct {
		owner string
		at    time.Time
		want  string
	}{
		{"ann", at(0).Add(time.Minute), "root"},
		{"ann", at(1).Add(time.Minute), "a"},
		{"ann", at(2), "root"}, // a ended at 2
		{"ann", at(5), "b"},
		{"", at(5), "c"},
		{"ann", at(-1), ""},
	} {
		got := ""
		if f := tr.ActiveAt(c.owner, c.at); f != nil {
			got = f.ID
		}
		if got != c.want {
			t.Errorf("ActiveAt(%q, %v) = %q, want %q", c.owner, c.at, got, c.want)
		}
	}
}

func TestNextPhase(t *testing.T) {
	m := &cairn.Mission{Text: "Report on AI regulation"}
	p1, err := cairn.NextPhase(m, "RESEARCH", "Find sources", nil, cairn.PhaseNext)
	if err != nil || p1.Seq != 1 || p1.Reason != cairn.PhaseStart {
		t.Fatal(p1, err)
	}
	m.Phase = p1
	p2, err := cairn.NextPhase(m, "SYNTHESIS", "Write the report", []string{"corpus/*.md"}, cairn.PhaseNext)
	if err != nil || p2.Seq != 2 || strings.Join(p2.Outputs, ",") != "corpus/*.md" {
		t.Fatal(p2, err)
	}
	m.Phase = p2
	p3, err := cairn.NextPhase(m, "", "", []string{"chapter_1.html"}, cairn.PhaseRecovery)
	if err != nil || p3.Name != "SYNTHESIS" || p3.Task != "Write the report" || strings.Join(p3.Outputs, ",") != "corpus/*.md,chapter_1.html" {
		t.Fatal(p3, err)
	}
	if err := (&cairn.Mission{Text: "m", Progress: strings.Repeat("x", 501)}).Validate(); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Fatal(err)
	}
}

func TestBudgetValidate(t *testing.T) {
	if err := cairn.DefaultBudget().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, b := range []cairn.Budget{{Tokens: -1}, {Tokens: 10}, {Chars: 100}, {Allocations: []cairn.Allocation{{Section: "core", Share: 101}}}} {
		if err := b.Validate(); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("%+v: %v", b, err)
		}
	}
}

// apply returns the tree after change c.
func apply(t *testing.T, tr *cairn.FrameTree, c *cairn.FrameChange, err error) *cairn.FrameTree {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	frames := map[string]*cairn.Frame{}
	var order []string
	for _, f := range tr.Frames() {
		frames[f.ID], order = f, append(order, f.ID)
	}
	for _, f := range c.Update {
		frames[f.ID] = f
	}
	out := make([]*cairn.Frame, len(order))
	for i, id := range order {
		out[i] = frames[id]
	}
	return cairn.NewFrameTree(out)
}

// TestPopTwice pins that popping again with the results just given to a
// child does not silently end the parent with them.
func TestPopTwice(t *testing.T) {
	tr := tree("a - in_progress", "a1 a in_progress")
	r := cairn.FrameResults{Status: cairn.FrameCompleted, Results: "baseline 41 ns/op"}
	c, err := tr.Pop("a1", r, t0)
	tr = apply(t, tr, c, err)
	if cur := tr.Current(""); cur == nil || cur.ID != "a" {
		t.Fatalf("current after the pop: %v", cur)
	}
	if _, err := tr.Pop("a", r, t0.Add(time.Second)); cairn.ErrorCode(err) != cairn.ECONFLICT || !strings.Contains(cairn.ErrorMessage(err), "a1 was just popped with these same results") {
		t.Fatalf("second pop with the same results: %v", err)
	}
	if _, err := tr.Pop("a", cairn.FrameResults{Status: cairn.FrameCompleted, Results: "auth done"}, t0.Add(time.Second)); err != nil {
		t.Fatalf("pop with the parent's own results: %v", err)
	}
}

// TestBlockedResumedCompleted pins that a blocked frame, once resumed,
// no longer carries what blocked it as its results.
func TestBlockedResumedCompleted(t *testing.T) {
	tr := tree("a - in_progress")
	c, err := tr.Pop("a", cairn.FrameResults{Status: cairn.FrameBlocked, Results: "needs the staging password"}, t0)
	tr = apply(t, tr, c, err)
	c, err = tr.Activate("a", "", t0.Add(time.Minute))
	tr = apply(t, tr, c, err)
	if f := tr.Frame("a"); f.Results != "" {
		t.Fatalf("resumed frame's results: %q", f.Results)
	}
	if _, err := tr.Pop("a", cairn.FrameResults{Status: cairn.FrameCompleted}, t0.Add(time.Hour)); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Fatalf("completing without results after the block: %v", err)
	}
	c, err = tr.Pop("a", cairn.FrameResults{Status: cairn.FrameCompleted, Results: "deployed"}, t0.Add(time.Hour))
	if tr = apply(t, tr, c, err); tr.Frame("a").Results != "deployed" {
		t.Fatalf("results: %q", tr.Frame("a").Results)
	}
}
