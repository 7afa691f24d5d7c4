package http_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"cairn"
	cairnhttp "cairn/http"
	"cairn/mock"
)

// MustPost posts body to path, wants 200 and decodes the JSON answer.
func MustPost(tb testing.TB, s *cairnhttp.Server, path, body string, v any) {
	tb.Helper()
	code, got := Do(tb, s, "POST", path, body)
	if code != 200 {
		tb.Fatalf("POST %s: %d %s", path, code, got)
	}
	if err := json.Unmarshal([]byte(got), v); err != nil {
		tb.Fatalf("POST %s: %v in %s", path, err, got)
	}
}

// engagements returns the engagement of each round of a session.
func engagements(tb testing.TB, st *Store, session string) map[int]string {
	tb.Helper()
	rounds, err := st.Rounds.FindRounds(context.Background(), cairn.RoundFilter{SessionID: session})
	if err != nil {
		tb.Fatal(err)
	}
	out := map[int]string{}
	for _, r := range rounds {
		out[r.Seq] = r.EngagementID
	}
	return out
}

func TestTag(t *testing.T) {
	s, st := MustOpenServer(t)
	t.Run("OK", func(t *testing.T) {
		var got cairnhttp.TagResponse
		MustPost(t, s, "/api/sessions/"+sessionA+"/tags", `{"engagement": "auth", "rounds": [1, 2]}`, &got)
		if got.SessionID != sessionA || got.Engagement != "auth" {
			t.Fatalf("%+v", got)
		}
		if e := engagements(t, st, sessionA); e[1] != "auth" || e[2] != "auth" || e[3] != "" {
			t.Fatalf("engagements %v: want rounds 1 and 2 tagged auth", e)
		}
		MustPost(t, s, "/api/sessions/"+sessionA+"/untag", `{"rounds": [2]}`, &got)
		if e := engagements(t, st, sessionA); e[1] != "auth" || e[2] != "" {
			t.Fatalf("engagements %v: want round 2 untagged", e)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/tags", `{"engagement": "auth", "rounds": []}`, 400, "Name the rounds")
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/tags", `{"rounds": [1]}`, 400, "")
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/tags", `{"engagement": "auth", "rounds": "1-2"}`, 400, "Request body")
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/tags", `{"engagement": "auth", "rounds": [1], "extra": 1}`, 400, "unknown field")
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/untag", `not json`, 400, "Request body")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		WantError(t, s, "POST", "/api/sessions/ffff/tags", `{"engagement": "auth", "rounds": [1]}`, 404, "No session")
		WantError(t, s, "POST", "/api/sessions/"+sessionA+"/tags", `{"engagement": "auth", "rounds": [99]}`, 404, "")
	})
	t.Run("ErrMethod", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions/"+sessionA+"/tags", "", 404, "No API endpoint GET")
	})
	t.Run("ErrInternal", func(t *testing.T) {
		m := cairnhttp.NewServer()
		st.Serve(m)
		m.Tags = &mock.TagStore{UntagRoundsFn: func(context.Context, string, []int) error { return errors.New("locked") }}
		MustOpen(t, m)
		WantError(t, m, "POST", "/api/sessions/"+sessionA+"/untag", `{"rounds": [1]}`, 500, "Internal error.")
	})
}

func TestSuggest(t *testing.T) {
	s, st := MustOpenServer(t)
	t.Run("OK", func(t *testing.T) {
		var got cairnhttp.SuggestResponse
		MustPost(t, s, "/api/tags/suggest", `{"words": "Migration users", "session": "`+sessionA+`"}`, &got)
		if got.Engagement != "migration-users" || len(got.Candidates) == 0 {
			t.Fatalf("%+v: want candidates for migration-users", got)
		}
		for i, c := range got.Candidates {
			if c.Hit.SessionID != sessionA || c.Hit.RoundSeq == 0 || !strings.Contains(c.Hit.SnippetHTML, "<mark>") {
				t.Fatalf("candidate %+v", c.Hit)
			}
			if i > 0 && c.Matched > got.Candidates[i-1].Matched {
				t.Fatal("candidates matching more words come first")
			}
		}
		// Suggesting tags nothing: confirming is a separate request.
		for seq, e := range engagements(t, st, sessionA) {
			if e != "" {
				t.Fatalf("round %d tagged %q by a suggestion", seq, e)
			}
		}
		MustPost(t, s, "/api/tags/suggest", `{"words": "migration", "as": "db"}`, &got)
		if got.Engagement != "db" {
			t.Fatalf("engagement %q, want db", got.Engagement)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		WantError(t, s, "POST", "/api/tags/suggest", `{"words": "  "}`, 400, "need words")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		WantError(t, s, "POST", "/api/tags/suggest", `{"words": "x", "session": "ffff"}`, 404, "No session")
	})
}

func TestMatrix(t *testing.T) {
	s, _ := MustOpenServer(t)
	t.Run("Empty", func(t *testing.T) {
		var got struct {
			Engagements []string `json:"engagements"`
			Agents      []string `json:"agents"`
		}
		MustGet(t, s, "/api/matrix", &got)
		if got.Engagements == nil || len(got.Engagements) != 0 {
			t.Fatalf("%+v, want empty lists", got)
		}
	})
	t.Run("OK", func(t *testing.T) {
		var tagged cairnhttp.TagResponse
		MustPost(t, s, "/api/sessions/"+sessionA+"/tags", `{"engagement": "auth", "rounds": [1, 2]}`, &tagged)
		MustPost(t, s, "/api/sessions/"+subagentB+"/tags", `{"engagement": "auth", "rounds": [1]}`, &tagged)
		var got struct {
			Engagements []string                             `json:"engagements"`
			Agents      []string                             `json:"agents"`
			Cells       map[string]map[string][]*cairn.Round `json:"cells"`
		}
		MustGet(t, s, "/api/matrix", &got)
		if len(got.Engagements) != 1 || got.Engagements[0] != "auth" || len(got.Agents) != 2 {
			t.Fatalf("%+v: want auth by two agents", got)
		}
		var n int
		for _, rounds := range got.Cells["auth"] {
			n += len(rounds)
		}
		if n != 3 {
			t.Fatalf("%d rounds in the auth row, want 3", n)
		}
	})
	t.Run("ErrInternal", func(t *testing.T) {
		m := cairnhttp.NewServer()
		m.Rounds = &mock.RoundStore{FindRoundsFn: func(context.Context, cairn.RoundFilter) ([]*cairn.Round, error) { return nil, errors.New("boom") }}
		MustOpen(t, m)
		WantError(t, m, "GET", "/api/matrix", "", 500, "Internal error.")
	})
}
