package http_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"cairn"
	cairnhttp "cairn/http"
	"cairn/mock"
)

func TestRounds(t *testing.T) {
	s, st := MustOpenServer(t)
	all, err := st.Rounds.FindRounds(context.Background(), cairn.RoundFilter{SessionID: sessionA})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("OK", func(t *testing.T) {
		var got cairnhttp.RoundsResponse
		MustGet(t, s, "/api/sessions/"+sessionA+"/rounds", &got)
		if len(got.Rounds) != len(all) || got.Next != -1 {
			t.Fatalf("%d rounds, next %d; want %d, -1", len(got.Rounds), got.Next, len(all))
		}
		r := got.Rounds[len(got.Rounds)-1]
		if r.Index == "" || r.Roles != "user→assistant" || r.Blocks != nil {
			t.Fatalf("last round: index %q, roles %q, %d blocks", r.Index, r.Roles, len(r.Blocks))
		}
	})
	t.Run("Pages", func(t *testing.T) {
		var seqs []int
		for from := 0; from >= 0; {
			var got cairnhttp.RoundsResponse
			MustGet(t, s, "/api/sessions/"+sessionA+"/rounds?limit=2&from="+strconv.Itoa(from), &got)
			if len(got.Rounds) > 2 {
				t.Fatalf("page of %d rounds, want at most 2", len(got.Rounds))
			}
			for _, r := range got.Rounds {
				seqs = append(seqs, r.Seq)
			}
			from = got.Next
		}
		if len(seqs) != len(all) {
			t.Fatalf("pages held rounds %v; want all %d", seqs, len(all))
		}
		for i, r := range all {
			if seqs[i] != r.Seq {
				t.Fatalf("pages held rounds %v", seqs)
			}
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions/ffff/rounds", "", 404, "No session")
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions/"+sessionA+"/rounds?from=-1", "", 400, "want a number")
		WantError(t, s, "GET", "/api/sessions/"+sessionA+"/rounds?limit=100000", "", 400, "want a number")
	})
	t.Run("ErrInternal", func(t *testing.T) {
		m := cairnhttp.NewServer()
		m.Sessions = &mock.SessionStore{FindSessionByIDFn: func(_ context.Context, id string) (*cairn.Session, error) {
			return &cairn.Session{ID: id}, nil
		}}
		m.Rounds = &mock.RoundStore{FindRoundsFn: func(context.Context, cairn.RoundFilter) ([]*cairn.Round, error) {
			return nil, errors.New("boom")
		}}
		MustOpen(t, m)
		WantError(t, m, "GET", "/api/sessions/x/rounds", "", 500, "Internal error.")
	})
}

func TestRound(t *testing.T) {
	s, _ := MustOpenServer(t)
	t.Run("OK", func(t *testing.T) {
		var got cairnhttp.RoundResponse
		MustGet(t, s, "/api/sessions/"+sessionA+"/rounds/1", &got)
		if got.Round.Seq != 1 || len(got.Round.Blocks) == 0 || got.Fidelity != "full" {
			t.Fatalf("round %d with %d blocks at %q", got.Round.Seq, len(got.Round.Blocks), got.Fidelity)
		}
		kinds := map[cairn.BlockKind]bool{}
		for _, b := range got.Round.Blocks {
			kinds[b.Kind] = true
		}
		if !kinds[cairn.UserText] {
			t.Fatalf("round 1 kinds %v: want the user's words", kinds)
		}
	})
	t.Run("Fidelity", func(t *testing.T) {
		var full, text, partial cairnhttp.RoundResponse
		MustGet(t, s, "/api/sessions/"+sessionA+"/rounds/2", &full)
		MustGet(t, s, "/api/sessions/"+sessionA+"/rounds/2?fidelity=text", &text)
		MustGet(t, s, "/api/sessions/"+sessionA+"/rounds/2?fidelity=partial", &partial)
		count := func(r *cairn.Round, k cairn.BlockKind) (n int) {
			for _, b := range r.Blocks {
				if b.Kind == k {
					n++
				}
			}
			return n
		}
		if count(full.Round, cairn.ToolUse) == 0 || count(text.Round, cairn.ToolUse) != 0 || count(text.Round, cairn.Thinking) != 0 {
			t.Fatalf("tool calls: full %d, text %d", count(full.Round, cairn.ToolUse), count(text.Round, cairn.ToolUse))
		}
		if count(text.Round, cairn.AssistantText) != count(full.Round, cairn.AssistantText) {
			t.Fatal("text fidelity must keep the assistant's words")
		}
		for _, b := range partial.Round.Blocks {
			if b.Kind == cairn.ToolUse && !strings.HasPrefix(b.Content, "[tool_use:") {
				t.Fatalf("partial tool call %q: want a summary", b.Content)
			}
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions/"+sessionA+"/rounds/999", "", 404, "")
		WantError(t, s, "GET", "/api/sessions/ffff/rounds/1", "", 404, "No session")
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions/"+sessionA+"/rounds/x", "", 400, "want a round number")
		WantError(t, s, "GET", "/api/sessions/"+sessionA+"/rounds/1?fidelity=blurry", "", 400, "blurry")
	})
}
