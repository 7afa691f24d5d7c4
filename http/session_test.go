package http_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cairn"
	cairnhttp "cairn/http"
	"cairn/mock"
)

func TestSessions(t *testing.T) {
	s, _ := MustOpenServer(t)
	t.Run("OK", func(t *testing.T) {
		var got cairnhttp.SessionsResponse
		MustGet(t, s, "/api/sessions", &got)
		if got.Total != 4 || len(got.Sessions) != 4 {
			t.Fatalf("total %d, %d sessions; want the 4 main sessions", got.Total, len(got.Sessions))
		}
		MustGet(t, s, "/api/sessions?subagents=true&limit=2&offset=1", &got)
		if got.Total != 5 || len(got.Sessions) != 2 {
			t.Fatalf("with subagents, page 2: total %d, %d sessions; want 5, 2", got.Total, len(got.Sessions))
		}
		MustGet(t, s, "/api/sessions?agent=codex", &got)
		if got.Total != 0 {
			t.Fatalf("agent=codex: total %d, want none (the samples are Claude Code's)", got.Total)
		}
		MustGet(t, s, "/api/sessions?agent=claude-code", &got)
		if got.Total != 4 {
			t.Fatalf("agent=claude-code: total %d, want 4", got.Total)
		}
		MustGet(t, s, "/api/sessions?project=/nowhere&since=2020-01-01", &got)
		if got.Total != 0 || got.Sessions == nil {
			t.Fatalf("filtered: %+v, want an empty list", got)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions?since=yesterday", "", 400, "Cannot read")
		WantError(t, s, "GET", "/api/sessions?limit=0", "", 400, "want a number")
		WantError(t, s, "GET", "/api/sessions?offset=x", "", 400, "want a number")
	})
	t.Run("ErrInternal", func(t *testing.T) {
		m := cairnhttp.NewServer()
		m.Sessions = &mock.SessionStore{FindSessionsFn: func(context.Context, cairn.SessionFilter) ([]*cairn.Session, int, error) {
			return nil, 0, errors.New("open /home/me/.cairn/cairn.db: disk I/O error")
		}}
		MustOpen(t, m)
		WantError(t, m, "GET", "/api/sessions", "", 500, "Internal error.")
		if _, body := Do(t, m, "GET", "/api/sessions", ""); strings.Contains(body, "/home/me") {
			t.Fatalf("the error leaks a path: %s", body)
		}
	})
}

func TestSession(t *testing.T) {
	s, _ := MustOpenServer(t)
	t.Run("OK", func(t *testing.T) {
		var got cairnhttp.SessionResponse
		MustGet(t, s, "/api/sessions/"+sessionB[:len(sessionB)-2]+"02", &got)
		if got.Session.ID != sessionB || len(got.Children) != 1 || got.Children[0].ID != subagentB {
			t.Fatalf("session %s with children %v; want %s with its subagent", got.Session.ID, got.Children, sessionB)
		}
		MustGet(t, s, "/api/sessions/"+subagentB, &got)
		if got.Parent == nil || got.Parent.ID != sessionB || len(got.Children) != 0 {
			t.Fatalf("subagent's parent %v, children %v", got.Parent, got.Children)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions/ffffffff", "", 404, "No session")
	})
	t.Run("ErrAmbiguous", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions/5f0c2a1e", "", 400, "")
	})
	t.Run("ErrConflict", func(t *testing.T) {
		m := cairnhttp.NewServer()
		m.Sessions = &mock.SessionStore{FindSessionByIDFn: func(context.Context, string) (*cairn.Session, error) {
			return nil, cairn.Errorf(cairn.ECONFLICT, "Busy.")
		}}
		MustOpen(t, m)
		WantError(t, m, "GET", "/api/sessions/x", "", 409, "Busy.")
	})
}
