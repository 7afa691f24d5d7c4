package http_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/mock"
	"github.com/cairn-dev/cairn/surgery"
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

// TestMatrix checks the matrix's shape: a row per engagement phase (by
// the phase windows in the store), columns human, main and the subagent's
// type, and the subagent's rounds linked to the call that spawned them.
func TestMatrix(t *testing.T) {
	s, st := MustOpenServer(t)
	type matrix struct {
		Rows []struct {
			Key, Engagement, Phase string
		} `json:"rows"`
		Agents      []string                                    `json:"agents"`
		Cells       map[string]map[string][]surgery.MatrixRound `json:"cells"`
		Engagements []string                                    `json:"engagements"`
	}
	t.Run("Empty", func(t *testing.T) {
		var got matrix
		MustGet(t, s, "/api/matrix", &got)
		if got.Rows == nil || len(got.Rows) != 0 || got.Agents == nil {
			t.Fatalf("%+v, want empty lists", got)
		}
	})
	t.Run("OK", func(t *testing.T) {
		ctx := context.Background()
		r2, err := st.Rounds.FindRound(ctx, sessionA, 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Engagements.SetEngagementPhases(ctx, "auth", []cairn.EngagementPhase{
			{Name: "design", StartedAt: r2.StartedAt.Add(-24 * time.Hour), EndedAt: r2.StartedAt},
			{Name: "build", StartedAt: r2.StartedAt},
		}); err != nil {
			t.Fatal(err)
		}
		var tagged cairnhttp.TagResponse
		MustPost(t, s, "/api/sessions/"+sessionA+"/tags", `{"engagement": "auth", "rounds": [1, 2]}`, &tagged)
		MustPost(t, s, "/api/sessions/"+subagentB+"/tags", `{"engagement": "auth", "rounds": [1]}`, &tagged)
		var got matrix
		MustGet(t, s, "/api/matrix", &got)
		if len(got.Rows) != 2 || got.Rows[0].Key != "auth/design" || got.Rows[1].Key != "auth/build" {
			t.Fatalf("rows %+v: want auth/design then auth/build", got.Rows)
		}
		if strings.Join(got.Agents, ",") != "human,main,general-purpose" {
			t.Fatalf("agents %v", got.Agents)
		}
		if d := got.Cells["auth/design"]; len(d["human"]) != 1 || d["human"][0].Seq != 1 || len(d["main"]) != 1 {
			t.Fatalf("design row %+v: want round 1 by human and main", d)
		}
		var sub []surgery.MatrixRound
		for _, row := range got.Cells {
			sub = append(sub, row["general-purpose"]...)
		}
		if len(sub) != 1 || sub[0].SpawnedBy == nil || sub[0].SpawnedBy.SessionID == "" || sub[0].SpawnedBy.Round == 0 || sub[0].SpawnedBy.ToolID == "" {
			t.Fatalf("subagent rounds %+v: want one, linked to its spawning call", sub)
		}
	})
	t.Run("ErrInternal", func(t *testing.T) {
		m := cairnhttp.NewServer()
		m.Rounds = &mock.RoundStore{FindRoundsFn: func(context.Context, cairn.RoundFilter) ([]*cairn.Round, error) { return nil, errors.New("boom") }}
		MustOpen(t, m)
		WantError(t, m, "GET", "/api/matrix", "", 500, "Internal error.")
	})
}
