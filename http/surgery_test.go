package http_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/surgery"
)

// children returns the sessions surgery cut from parent.
func children(tb testing.TB, st *Store, parent string) []*cairn.Session {
	tb.Helper()
	all, _, err := st.Sessions.FindSessions(context.Background(), cairn.SessionFilter{Subagents: true})
	if err != nil {
		tb.Fatal(err)
	}
	var out []*cairn.Session
	for _, s := range all {
		if s.Lineage == cairn.LineageSurgery && slices.Contains(s.Parents, parent) {
			out = append(out, s)
		}
	}
	return out
}

func checkExported(tb testing.TB, st *Store, got cairnhttp.SurgeryResponse, op string, n int) {
	tb.Helper()
	if len(got.Results) != n {
		tb.Fatalf("%d results, want %d", len(got.Results), n)
	}
	for _, e := range got.Results {
		if e.Operation != op || !strings.Contains(e.Resume, "--resume "+e.ID) || e.Full == 0 {
			tb.Fatalf("result %+v: want %s with a resume command", e, op)
		}
		if _, err := os.Stat(e.Path); err != nil {
			tb.Fatal(err)
		}
		if s, err := st.Sessions.FindSessionByID(context.Background(), e.ID); err != nil || s.Operation != op {
			tb.Fatalf("exported session %s: %v, %v", e.ID, s, err)
		}
	}
}

func TestSplit(t *testing.T) {
	s, st := MustOpenServer(t)
	t.Run("OK", func(t *testing.T) {
		var got cairnhttp.SurgeryResponse
		MustPost(t, s, "/api/sessions/"+sessionA+"/split", `{"map": "2-3=migration", "rest": "rest", "fidelity": "partial"}`, &got)
		checkExported(t, st, got, cairn.OpSplit, 2)
		labels := []string{got.Results[0].Label, got.Results[1].Label}
		slices.Sort(labels)
		if !slices.Equal(labels, []string{"migration", "rest"}) {
			t.Fatalf("children %v, want migration and rest", labels)
		}
		if n := len(children(t, st, sessionA)); n != 2 {
			t.Fatalf("%d children in the store, want 2", n)
		}
		var lineage cairnhttp.SessionResponse
		MustGet(t, s, "/api/sessions/"+sessionA, &lineage)
		if len(lineage.Children) != 2 {
			t.Fatalf("session A lists %d children, want its 2 split children", len(lineage.Children))
		}
		MustGet(t, s, "/api/sessions/"+got.Results[0].ID, &lineage)
		if lineage.Parent == nil || lineage.Parent.ID != sessionA {
			t.Fatalf("a split child's parent: %+v", lineage.Parent)
		}
	})
	// A split child is labelled: its rounds carry its engagement, and the
	// parent's lineage lists it with it.
	t.Run("Labelled", func(t *testing.T) {
		var lineage cairnhttp.SessionResponse
		MustGet(t, s, "/api/sessions/"+sessionA, &lineage)
		var labels []string
		for _, c := range lineage.Children {
			if c.Operation != cairn.OpSplit || len(c.Engagements) != 1 {
				t.Fatalf("child %s: %s %v", c.ID, c.Operation, c.Engagements)
			}
			labels = append(labels, c.Engagements[0])
		}
		slices.Sort(labels)
		if !slices.Equal(labels, []string{"migration", "rest"}) {
			t.Fatalf("children labelled %v", labels)
		}
	})
	// The same split again is refused, naming the child; a different one
	// is not.
	t.Run("ErrDuplicate", func(t *testing.T) {
		before := len(children(t, st, sessionA))
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/split", `{"map": "2-3=migration", "rest": "rest", "fidelity": "partial"}`, 409, "is already this split")
		if n := len(children(t, st, sessionA)); n != before {
			t.Fatalf("%d children after a refused duplicate, want %d", n, before)
		}
		var got cairnhttp.SurgeryResponse
		MustPost(t, s, "/api/sessions/"+sessionA+"/split", `{"map": "2-3=migration", "rest": "rest", "fidelity": "text"}`, &got)
		checkExported(t, st, got, cairn.OpSplit, 2)
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/split", `{"map": "2-3"}`, 400, "RANGE=ENGAGEMENT")
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/split", `{"map": "2=a", "fidelity": "blurry"}`, 400, "blurry")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		WantError(t, s, "POST", "/api/sessions/ffff/split", `{"map": "1=a", "rest": "b"}`, 404, "No session")
	})
	t.Run("ErrInternal", func(t *testing.T) {
		m := cairnhttp.NewServer()
		st.Serve(m)
		m.Export = func(context.Context, *cairn.Materialization) (*cairnhttp.Exported, error) {
			return nil, errors.New("write /root/.claude/projects/x.jsonl: disk full")
		}
		MustOpen(t, m)
		WantError(t, m, "POST", "/api/sessions/"+sessionA+"/split", `{"map": "1=a"}`, 500, "Internal error.")
	})
}

func TestExtract(t *testing.T) {
	s, st := MustOpenServer(t)
	var tagged cairnhttp.TagResponse
	MustPost(t, s, "/api/sessions/"+sessionA+"/tags", `{"engagement": "db", "rounds": [2]}`, &tagged)
	t.Run("OK", func(t *testing.T) {
		var got cairnhttp.SurgeryResponse
		MustPost(t, s, "/api/sessions/"+sessionA+"/extract", `{"engagement": "db"}`, &got)
		checkExported(t, st, got, cairn.OpExtractEngagement, 1)
		if got.Results[0].Full != 1 {
			t.Fatalf("%d rounds in full, want the one tagged db", got.Results[0].Full)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/extract", `{}`, 400, "Name the engagement")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/extract", `{"engagement": "nothing"}`, 404, "")
	})
}

// A preview says what an action would write, with the token estimate,
// and writes nothing; it warns when nothing would shrink.
func TestSurgeryPreview(t *testing.T) {
	s, st := MustOpenServer(t)
	var got cairnhttp.SurgeryResponse
	MustPost(t, s, "/api/sessions/"+sessionA+"/revive", `{"before": "3", "preview": true}`, &got)
	if !got.Preview || len(got.Results) != 1 {
		t.Fatalf("preview: %+v", got)
	}
	e := got.Results[0]
	if e.ID != "" || e.Resume != "" || e.Index == 0 || e.Tokens <= 0 || e.Tokens >= e.SourceTokens || e.Warning != "" {
		t.Fatalf("preview of a revive before round 3: %+v", e)
	}
	if n := len(children(t, st, sessionA)); n != 0 {
		t.Fatalf("a preview wrote %d children", n)
	}
	// Rounds 1-3 of A, all of it: under a budget a split never grows what
	// the client loads, so the part is fitted under the session's size (its
	// oldest steps as index lines) and there is nothing to warn of.
	MustPost(t, s, "/api/sessions/"+sessionA+"/split", `{"map": "1-3=all", "preview": true}`, &got)
	if e := got.Results[0]; e.Index != 0 || e.Tokens >= e.SourceTokens || e.Warning != "" {
		t.Fatalf("preview of a split that keeps everything: %+v", e)
	}
	// The written action reports the same figures.
	var wrote cairnhttp.SurgeryResponse
	MustPost(t, s, "/api/sessions/"+sessionA+"/revive", `{"before": "3"}`, &wrote)
	MustPost(t, s, "/api/sessions/"+sessionA+"/revive", `{"before": "3", "preview": true}`, &got)
	if w := wrote.Results[0]; w.Tokens != e.Tokens || w.SourceTokens != e.SourceTokens || w.ID == "" {
		t.Fatalf("written %+v, previewed %+v", w, e)
	}
	// Previewing it again names the child already written.
	if got.Results[0].Existing != wrote.Results[0].ID {
		t.Fatalf("preview after writing: existing %q, want %s", got.Results[0].Existing, wrote.Results[0].ID)
	}
}

func TestRevive(t *testing.T) {
	s, st := MustOpenServer(t)
	t.Run("OK", func(t *testing.T) {
		for _, body := range []string{`{}`, `{"before": "3"}`} {
			var got cairnhttp.SurgeryResponse
			MustPost(t, s, "/api/sessions/"+sessionA+"/revive", body, &got)
			checkExported(t, st, got, cairn.OpRevive, 1)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/revive", `{"before": "3", "engagement": "db"}`, 400, "not both")
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/revive", `{"before": "someday"}`, 400, "neither a round")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		WantError(t, s, "POST", "/api/sessions/ffff/revive", `{}`, 404, "No session")
	})
}

// The preview's size is surgery.Estimate of what the action writes, fitted
// as the CLI fits it (the default budget, half the model's window; revive
// at most the recent half of what the client loads), against
// what the client loads for the session today: the CLI's "size" line.
func TestSurgeryPreview_Estimate(t *testing.T) {
	s, st := MustOpenServer(t)
	ctx := context.Background()
	cli := surgery.Store{Sessions: st.Sessions, Rounds: st.Rounds, Lines: st.Lines, Engagements: st.Engagements,
		LinesOnly: true, Limits: surgery.Limits{Budget: surgery.AutoBudget}}
	orig, err := surgery.Resume(ctx, cli, sessionA)
	if err != nil {
		t.Fatal(err)
	}
	m, err := surgery.Revive(ctx, cli, sessionA, "3", "", cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	var got cairnhttp.SurgeryResponse
	MustPost(t, s, "/api/sessions/"+sessionA+"/revive", `{"before": "3", "preview": true}`, &got)
	e := got.Results[0]
	want := surgery.Estimate(m)
	if e.Tokens != want || e.Tokens != m.Tokens || e.Budget != m.Budget || e.Percent != 100*want/m.Budget {
		t.Fatalf("preview: ~%d tokens (budget %d, %d%%); the CLI's estimate ~%d (budget %d, %d%%)", e.Tokens, e.Budget, e.Percent, want, m.Budget, 100*want/m.Budget)
	}
	if e.SourceTokens != surgery.Estimate(orig) || e.Tokens >= e.SourceTokens || e.Warning != "" {
		t.Fatalf("preview against what the client loads (~%d): %+v", surgery.Estimate(orig), e)
	}
	// What the action writes carries the same figures.
	var wrote cairnhttp.SurgeryResponse
	MustPost(t, s, "/api/sessions/"+sessionA+"/revive", `{"before": "3"}`, &wrote)
	if w := wrote.Results[0]; w.Tokens != want || w.Budget != e.Budget || w.Percent != e.Percent || w.SourceTokens != e.SourceTokens {
		t.Fatalf("written %+v, previewed %+v", w, e)
	}
}

// A child is refused whoever wrote it: two servers over one store, each
// with its own connection to the file, as two processes.
func TestSurgery_DuplicateAcrossServers(t *testing.T) {
	s1, st := MustOpenServer(t)
	s2 := cairnhttp.NewServer()
	st.Reopen(t).Serve(s2)
	MustOpen(t, s2)

	var wrote cairnhttp.SurgeryResponse
	MustPost(t, s1, "/api/sessions/"+sessionA+"/revive", `{"before": "3"}`, &wrote)
	id := wrote.Results[0].ID
	var got cairnhttp.SurgeryResponse
	MustPost(t, s2, "/api/sessions/"+sessionA+"/revive", `{"before": "3", "preview": true}`, &got)
	if e := got.Results[0]; e.Existing != id || e.ExistingResume != "claude --resume "+id {
		t.Fatalf("the other server's preview: existing %q (%q), want %s", e.Existing, e.ExistingResume, id)
	}
	WantError(t, s2, "POST", "/api/sessions/"+sessionA+"/revive", `{"before": "3"}`, 409, "Session "+id+" is already this revive")
	WantError(t, s2, "POST", "/api/sessions/"+sessionA+"/revive", `{"before": "3"}`, 409, "Resume it: claude --resume "+id)
	if n := len(children(t, st, sessionA)); n != 1 {
		t.Fatalf("%d children after a refused duplicate, want 1", n)
	}
	// Another fidelity is another child.
	MustPost(t, s2, "/api/sessions/"+sessionA+"/revive", `{"before": "3", "fidelity": "partial"}`, &got)
	if got.Results[0].ID == "" || got.Results[0].ID == id {
		t.Fatalf("revive at partial fidelity: %+v", got.Results[0])
	}
}

// The viewer's surgical actions leave out a pi session's branches left,
// as the CLI's do (surgery's Store.OffPath, passed as Server.OffPath): a
// revive of the real branched session previews what the CLI's store with
// pi's off-path lines fits, not what one without them does.
func TestRevive_PiOffPath(t *testing.T) {
	s, st := MustOpenServer(t)
	s.OffPath = pi.SessionOffPath(st.Lines)
	importFiles(t, st, pi.Format{}, piBranched)
	ctx := context.Background()
	estimate := func(off func(context.Context, *cairn.Session) (map[int]bool, error)) int64 {
		cli := surgery.Store{Sessions: st.Sessions, Rounds: st.Rounds, Lines: st.Lines, Engagements: st.Engagements,
			LinesOnly: true, Limits: surgery.Limits{Budget: surgery.AutoBudget}, OffPath: off}
		m, err := surgery.Revive(ctx, cli, piBranchedID, "", "", cairn.FullFidelity)
		if err != nil {
			t.Fatal(err)
		}
		return surgery.Estimate(m)
	}
	onPath, whole := estimate(pi.SessionOffPath(st.Lines)), estimate(nil)
	if onPath >= whole {
		t.Fatalf("the branched session's revive: ~%d tokens on its path, ~%d with its branch: the fixture has no branch to leave out", onPath, whole)
	}
	var got cairnhttp.SurgeryResponse
	MustPost(t, s, "/api/sessions/"+piBranchedID+"/revive", `{"preview": true}`, &got)
	if e := got.Results[0]; e.Tokens != onPath {
		t.Fatalf("the viewer's revive previews ~%d tokens; the CLI's ~%d on the path pi resumes (~%d with the branch left)", e.Tokens, onPath, whole)
	}
}
