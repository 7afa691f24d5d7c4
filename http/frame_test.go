package http_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/mock"
)

func TestFrames(t *testing.T) {
	s, st := MustOpenServer(t)
	ctx := context.Background()
	t.Run("Empty", func(t *testing.T) {
		var got cairnhttp.FramesResponse
		MustGet(t, s, "/api/frames", &got)
		if got.Frames == nil || len(got.Frames) != 0 || got.Current != "" {
			t.Fatalf("%+v, want no frames", got)
		}
	})
	stack := &cairn.Stack{Frames: st.Frames}
	if _, err := stack.Push(ctx, "", &cairn.Frame{ID: "auth", Title: "Fix auth", SuccessCriteria: "login works"}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := stack.Plan(ctx, "auth", []*cairn.Frame{{ID: "tests", Title: "Write tests", SuccessCriteria: "they fail first"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Frames.TagFrameRounds(ctx, "auth", []cairn.RoundRef{{SessionID: sessionA, Seq: 1}, {SessionID: subagentB, Seq: 1}}); err != nil {
		t.Fatal(err)
	}
	t.Run("OK", func(t *testing.T) {
		var got cairnhttp.FramesResponse
		MustGet(t, s, "/api/frames", &got)
		if len(got.Frames) != 2 || got.Current != "auth" {
			t.Fatalf("%d frames, current %q", len(got.Frames), got.Current)
		}
		if f := got.Frames[1]; f.ID != "tests" || f.Depth != 1 || f.Status != cairn.FramePlanned {
			t.Fatalf("second frame %+v: want the planned child at depth 1", f.Frame)
		}
		var one cairnhttp.FrameResponse
		MustGet(t, s, "/api/frames/auth", &one)
		if one.Frame.Status != cairn.FrameInProgress || len(one.Rounds) != 2 || one.Rounds[0].SessionID != sessionA {
			t.Fatalf("frame auth %+v with rounds %+v", one.Frame, one.Rounds)
		}
		// The subagent's round links back to the call that spawned it.
		if sp := one.SpawnedBy[subagentB]; sp == nil || sp.SessionID == "" || sp.Round == 0 || sp.ToolID == "" || len(one.SpawnedBy) != 1 {
			t.Fatalf("spawned_by %+v: want the subagent's spawning call only", one.SpawnedBy)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		WantError(t, s, "GET", "/api/frames/nope", "", 404, "")
	})
	t.Run("ErrInternal", func(t *testing.T) {
		m := cairnhttp.NewServer()
		m.Frames = &mock.FrameStore{FindFramesFn: func(context.Context) ([]*cairn.Frame, error) { return nil, errors.New("boom") }}
		MustOpen(t, m)
		WantError(t, m, "GET", "/api/frames", "", 500, "Internal error.")
	})
}
