package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// testEngagements checks that engagement phases are replaced whole, read
// back in order with their windows (an open phase has no end), and
// refused when incomplete.
func testEngagements(t *testing.T, open Open) {
	if probe := open(t); probe.Engagements == nil {
		t.Skip("the backend has no EngagementStore")
	}
	ctx := context.Background()
	st := open(t)
	h := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Hour) }
	if err := st.Engagements.SetEngagementPhases(ctx, "surgery", []cairn.EngagementPhase{
		{Name: "start", StartedAt: h(0), EndedAt: h(1)}, {Name: "merge", StartedAt: h(1), EndedAt: h(2)}, {Name: "review", StartedAt: h(2)},
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Engagements.SetEngagementPhases(ctx, "auth", []cairn.EngagementPhase{{Name: "start", StartedAt: h(5)}}); err != nil {
		t.Fatal(err)
	}
	// Replaced whole: the file is the source.
	if err := st.Engagements.SetEngagementPhases(ctx, "surgery", []cairn.EngagementPhase{
		{Name: "start", StartedAt: h(0), EndedAt: h(1)}, {Name: "merge", StartedAt: h(1), EndedAt: h(3)},
	}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Engagements.FindEngagementPhases(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []cairn.EngagementPhase{
		{EngagementID: "auth", Seq: 1, Name: "start", StartedAt: h(5)},
		{EngagementID: "surgery", Seq: 1, Name: "start", StartedAt: h(0), EndedAt: h(1)},
		{EngagementID: "surgery", Seq: 2, Name: "merge", StartedAt: h(1), EndedAt: h(3)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i].EngagementID != want[i].EngagementID || got[i].Seq != want[i].Seq || got[i].Name != want[i].Name ||
			!got[i].StartedAt.Equal(want[i].StartedAt) || !got[i].EndedAt.Equal(want[i].EndedAt) {
			t.Fatalf("phase %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	one, err := st.Engagements.FindEngagementPhases(ctx, "auth")
	if err != nil || len(one) != 1 || !one[0].EndedAt.IsZero() {
		t.Fatalf("auth: %+v %v", one, err)
	}
	for _, bad := range [][]cairn.EngagementPhase{{{Name: "", StartedAt: h(0)}}, {{Name: "x"}}, {{Name: "x", StartedAt: h(2), EndedAt: h(1)}}} {
		if err := st.Engagements.SetEngagementPhases(ctx, "bad", bad); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("%+v: %v, want EINVALID", bad, err)
		}
	}
	if err := st.Engagements.SetEngagementPhases(ctx, "", nil); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("empty id: %v, want EINVALID", err)
	}
}
