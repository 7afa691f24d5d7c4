package storetest

import (
	"context"
	"testing"

	"github.com/cairn-dev/cairn"
)

func testTags(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	a := newSession("7a9a0000-0000-0000-0000-000000000000", "/p", t0, 5, plain)
	b := newSession("7a9b0000-0000-0000-0000-000000000000", "/q", t0, 3, plain)
	MustInscribe(t, st, a.in)
	MustInscribe(t, st, b.in)
	seqs := func(rounds []*cairn.Round) (out []string) {
		for _, r := range rounds {
			out = append(out, r.SessionID[:4]+":"+string(rune('0'+r.Seq))+"="+r.EngagementID)
		}
		return out
	}
	find := func(t *testing.T, f cairn.RoundFilter) []string {
		t.Helper()
		rounds, err := st.Rounds.FindRounds(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return seqs(rounds)
	}
	equal := func(t *testing.T, got []string, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("got %q, want %q", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
	}
	// counted checks that each tag's count is the number of its rounds
	// found, after every change of tags: a store may keep counts apart
	// from the tags (SQLite's round_tag_counts).
	counted := func(t *testing.T) {
		t.Helper()
		for _, tag := range []string{"console", "inscription", "kept", "auto", "manual", "f1", "fz", "fr"} {
			for _, f := range []cairn.RoundFilter{{FrameID: tag}, {EngagementID: tag}} {
				n, err := st.Rounds.CountRounds(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if found := find(t, f); n != len(found) {
					t.Errorf("CountRounds(%+v) = %d, but %d rounds found: %q", f, n, len(found), found)
				}
			}
		}
	}

	t.Run("OK", func(t *testing.T) {
		if err := st.Tags.TagRounds(ctx, a.s.ID, []int{2, 3}, "console", ""); err != nil {
			t.Fatal(err)
		}
		if err := st.Tags.TagRounds(ctx, b.s.ID, []int{1}, "console", "f1"); err != nil {
			t.Fatal(err)
		}
		// Across sessions: the canonical engagement query.
		equal(t, find(t, cairn.RoundFilter{EngagementID: "console"}), "7a9a:2=console", "7a9a:3=console", "7a9b:1=console")
		equal(t, find(t, cairn.RoundFilter{SessionID: a.s.ID, Tagged: true}), "7a9a:2=console", "7a9a:3=console")
		// The last rounds of a tag, still oldest first, and the count of all.
		equal(t, find(t, cairn.RoundFilter{EngagementID: "console", Last: 2}), "7a9a:3=console", "7a9b:1=console")
		equal(t, find(t, cairn.RoundFilter{SessionID: a.s.ID, Last: 2}), "7a9a:4=", "7a9a:5=")
		for _, c := range []struct {
			f    cairn.RoundFilter
			want int
		}{
			{cairn.RoundFilter{EngagementID: "console", Last: 1}, 3},
			{cairn.RoundFilter{FrameID: "f1"}, 1},
			{cairn.RoundFilter{SessionID: a.s.ID}, 5},
			{cairn.RoundFilter{SessionID: a.s.ID, Tagged: true}, 2},
			{cairn.RoundFilter{FrameID: "none"}, 0},
		} {
			if n, err := st.Rounds.CountRounds(ctx, c.f); err != nil || n != c.want {
				t.Errorf("CountRounds(%+v) = %d, %v; want %d", c.f, n, err, c.want)
			}
		}
		r, err := st.Rounds.FindRound(ctx, b.s.ID, 1)
		if err != nil {
			t.Fatal(err)
		} else if r.FrameID != "f1" {
			t.Fatalf("frame = %q", r.FrameID)
		}
		counted(t)
	})
	t.Run("Retag", func(t *testing.T) {
		if err := st.Tags.TagRounds(ctx, a.s.ID, []int{3}, "inscription", ""); err != nil {
			t.Fatal(err)
		}
		equal(t, find(t, cairn.RoundFilter{SessionID: a.s.ID, Tagged: true}), "7a9a:2=console", "7a9a:3=inscription")
		counted(t)
	})
	t.Run("Untag", func(t *testing.T) {
		if err := st.Tags.UntagRounds(ctx, a.s.ID, []int{2, 4}); err != nil {
			t.Fatal(err)
		}
		equal(t, find(t, cairn.RoundFilter{SessionID: a.s.ID, Tagged: true}), "7a9a:3=inscription")
		if err := st.Tags.UntagRounds(ctx, b.s.ID, []int{1}); err != nil {
			t.Fatal(err)
		}
		r, err := st.Rounds.FindRound(ctx, b.s.ID, 1)
		if err != nil {
			t.Fatal(err)
		} else if r.EngagementID != "" || r.FrameID != "f1" {
			t.Fatalf("after untag: engagement %q frame %q, want the frame kept", r.EngagementID, r.FrameID)
		}
		counted(t)
	})
	t.Run("SurvivesReinscribe", func(t *testing.T) {
		// Rebuilding rounds from lines must not lose tags: they are not in rounds.
		in := *a.in
		in.Lines, in.FromSeq = nil, 3
		in.Rounds, in.Blocks, in.Messages = a.in.Rounds[2:], nil, nil
		MustInscribe(t, st, &in)
		equal(t, find(t, cairn.RoundFilter{SessionID: a.s.ID, Tagged: true}), "7a9a:3=inscription")
		counted(t)
	})
	t.Run("CountsRoundsNotTags", func(t *testing.T) {
		// A round a later inscription drops keeps its tag row: it is no
		// longer one of the tag's rounds, found or counted.
		d := newSession("7a9d0000-0000-0000-0000-000000000000", "/p", t0, 3, plain)
		MustInscribe(t, st, d.in)
		if err := st.Tags.TagRounds(ctx, d.s.ID, []int{1, 2, 3}, "kept", "fz"); err != nil {
			t.Fatal(err)
		}
		in := *d.in
		in.Lines, in.FromSeq = nil, 2
		in.Rounds, in.Blocks, in.Messages = d.in.Rounds[1:2], nil, nil
		MustInscribe(t, st, &in)
		equal(t, find(t, cairn.RoundFilter{FrameID: "fz"}), "7a9d:1=kept", "7a9d:2=kept")
		for _, f := range []cairn.RoundFilter{{FrameID: "fz"}, {EngagementID: "kept"}} {
			if n, err := st.Rounds.CountRounds(ctx, f); err != nil || n != 2 {
				t.Errorf("CountRounds(%+v) = %d, %v; want 2", f, n, err)
			}
		}
		counted(t)
	})
	t.Run("AutoTag", func(t *testing.T) {
		c := newSession("7a9c0000-0000-0000-0000-000000000000", "/p", t0, 2, plain)
		c.in.EngagementID, c.in.FrameID = "auto", "fr"
		MustInscribe(t, st, c.in)
		equal(t, find(t, cairn.RoundFilter{SessionID: c.s.ID}), "7a9c:1=auto", "7a9c:2=auto")
		// A round tagged by hand keeps its tag when the inscriber re-tags.
		if err := st.Tags.TagRounds(ctx, c.s.ID, []int{2}, "manual", ""); err != nil {
			t.Fatal(err)
		}
		in := *c.in
		in.Lines, in.FromSeq, in.Rounds, in.Blocks, in.Messages = nil, 2, c.in.Rounds[1:], nil, nil
		MustInscribe(t, st, &in)
		equal(t, find(t, cairn.RoundFilter{SessionID: c.s.ID}), "7a9c:1=auto", "7a9c:2=manual")
		counted(t)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		wantCode(t, st.Tags.TagRounds(ctx, a.s.ID, []int{99}, "x", ""), cairn.ENOTFOUND)
		wantCode(t, st.Tags.TagRounds(ctx, "nope", []int{1}, "x", ""), cairn.ENOTFOUND)
		wantCode(t, st.Tags.UntagRounds(ctx, "nope", []int{1}), cairn.ENOTFOUND)
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		wantCode(t, st.Tags.TagRounds(ctx, a.s.ID, []int{1}, "", ""), cairn.EINVALID)
	})
}

func testLineage(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	a := newSession("11aa0000-0000-0000-0000-000000000000", "/p", t0, 1, plain)
	MustInscribe(t, st, a.in)
	t.Run("OK", func(t *testing.T) {
		if err := st.Sessions.SetLineage(ctx, a.s.ID, cairn.LineageSurgery, []string{"p1", "p2"}, cairn.OpMerge, "merge p1 p2 · layout 1"); err != nil {
			t.Fatal(err)
		}
		// The recipe finds the export, whoever wrote it; another finds none.
		for recipe, want := range map[string]int{"merge p1 p2 · layout 1": 1, "merge p1 p2 · layout 2": 0} {
			found, _, err := st.Sessions.FindSessions(ctx, cairn.SessionFilter{Recipe: recipe, Subagents: true})
			if err != nil {
				t.Fatal(err)
			} else if len(found) != want || want == 1 && (found[0].ID != a.s.ID || found[0].Recipe != recipe) {
				t.Fatalf("recipe %q found %v, want %d", recipe, found, want)
			}
		}
		s, err := st.Sessions.FindSessionByID(ctx, a.s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if s.Lineage != cairn.LineageSurgery || s.Parent != "p1" || len(s.Parents) != 2 || s.Parents[1] != "p2" || s.Operation != cairn.OpMerge {
			t.Fatalf("session = %+v", s)
		}
		// A later import of the same file keeps the lineage.
		in := *a.in
		in.Lines = nil
		MustInscribe(t, st, &in)
		if s, err = st.Sessions.FindSessionByID(ctx, a.s.ID); err != nil {
			t.Fatal(err)
		} else if s.Lineage != cairn.LineageSurgery || s.Operation != cairn.OpMerge {
			t.Fatalf("after re-inscribe: %+v", s)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		wantCode(t, st.Sessions.SetLineage(ctx, "nope", cairn.LineageSurgery, nil, "", ""), cairn.ENOTFOUND)
	})
}
