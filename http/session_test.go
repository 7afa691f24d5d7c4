package http_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/mock"
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
	t.Run("Sort", func(t *testing.T) {
		for _, c := range []struct {
			by  string
			key func(*cairnhttp.SessionRow) float64
		}{
			{"rounds", func(r *cairnhttp.SessionRow) float64 { return float64(r.Rounds) }},
			{"tokens", func(r *cairnhttp.SessionRow) float64 { return float64(r.Usage.Context() + r.Usage.Output) }},
			{"duration", func(r *cairnhttp.SessionRow) float64 { return r.EndedAt.Sub(r.StartedAt).Seconds() }},
			{"time", func(r *cairnhttp.SessionRow) float64 { return float64(r.EndedAt.Unix()) }},
			{"tools", func(r *cairnhttp.SessionRow) float64 { return float64(r.ToolCalls) }},
		} {
			for _, order := range []string{"asc", "desc"} {
				var got cairnhttp.SessionsResponse
				MustGet(t, s, "/api/sessions?sort="+c.by+"&order="+order, &got)
				if got.Total != 4 || len(got.Sessions) != 4 {
					t.Fatalf("sort=%s: %d of %d", c.by, len(got.Sessions), got.Total)
				}
				for i := 1; i < len(got.Sessions); i++ {
					a, b := c.key(got.Sessions[i-1]), c.key(got.Sessions[i])
					if (order == "asc" && a > b) || (order == "desc" && a < b) {
						t.Fatalf("sort=%s order=%s: %v before %v", c.by, order, a, b)
					}
				}
			}
		}
		var first, second cairnhttp.SessionsResponse
		MustGet(t, s, "/api/sessions?sort=rounds&limit=2", &first)
		MustGet(t, s, "/api/sessions?sort=rounds&limit=2&offset=2", &second)
		if len(first.Sessions) != 2 || len(second.Sessions) != 2 || first.Sessions[1].Rounds < second.Sessions[0].Rounds {
			t.Fatal("sorted pages do not follow each other")
		}
	})
	// Children are grouped under their parents: the subagent under B.
	t.Run("Tree", func(t *testing.T) {
		var got cairnhttp.SessionsResponse
		MustGet(t, s, "/api/sessions?tree=true", &got)
		if got.Total != 4 {
			t.Fatalf("tree: %d top rows, want the 4 main sessions", got.Total)
		}
		for _, r := range got.Sessions {
			want := 0
			if r.ID == sessionB {
				want = 1
			}
			if len(r.Children) != want || (want == 1 && r.Children[0].ID != subagentB) {
				t.Fatalf("%s has children %v", r.ID, r.Children)
			}
		}
	})
	t.Run("ProjectSubstring", func(t *testing.T) {
		var all, got cairnhttp.SessionsResponse
		MustGet(t, s, "/api/sessions", &all)
		proj := all.Sessions[0].Project
		part := proj[1 : len(proj)-1]
		MustGet(t, s, "/api/sessions?in="+strings.ToUpper(part), &got)
		if got.Total == 0 {
			t.Fatalf("in=%s: nothing", part)
		}
		for _, r := range got.Sessions {
			if !strings.Contains(r.Project, part) {
				t.Fatalf("in=%s: %s", part, r.Project)
			}
		}
		MustGet(t, s, "/api/sessions?in=no-such-folder", &got)
		if got.Total != 0 || got.Sessions == nil {
			t.Fatalf("in=no-such-folder: %+v", got)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions?sort=size", "", 400, "Cannot sort sessions by")
		WantError(t, s, "GET", "/api/sessions?order=up", "", 400, "Order")
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

// group=project keeps each project's sessions together, in the order of
// the project's first session under the sort; another grouping is refused.
func TestSessionsGroupedByProject(t *testing.T) {
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	var sorted, grouped cairnhttp.SessionsResponse
	MustGet(t, s, "/api/sessions?tree=true&sort=tools", &sorted)
	MustGet(t, s, "/api/sessions?tree=true&sort=tools&group=project", &grouped)
	if len(grouped.Sessions) != len(sorted.Sessions) || grouped.Total != sorted.Total {
		t.Fatalf("grouped %d of %d, sorted %d of %d", len(grouped.Sessions), grouped.Total, len(sorted.Sessions), sorted.Total)
	}
	var order []string
	seen := map[string]bool{}
	for _, r := range sorted.Sessions {
		if !seen[r.Project] {
			seen[r.Project] = true
			order = append(order, r.Project)
		}
	}
	var got []string
	for i, r := range grouped.Sessions {
		if i == 0 || r.Project != grouped.Sessions[i-1].Project {
			got = append(got, r.Project)
		}
	}
	if strings.Join(got, "\n") != strings.Join(order, "\n") {
		t.Fatalf("projects in the grouped list %q, want each once in the order %q", got, order)
	}
	if code, body := Do(t, s, "GET", "/api/sessions?group=agent", ""); code != 400 || !strings.Contains(body, "use project") {
		t.Fatalf("group=agent: %d %s", code, body)
	}
}

// A session the watcher imported within RunningFor is running, in the
// list (children too) and on its own; the others are not.
func TestSessionsRunning(t *testing.T) {
	s, _ := MustOpenServer(t)
	s.Notify(subagentB)
	var list cairnhttp.SessionsResponse
	MustGet(t, s, "/api/sessions?tree=true", &list)
	var running []string
	var walk func([]*cairnhttp.SessionRow)
	walk = func(rows []*cairnhttp.SessionRow) {
		for _, r := range rows {
			if r.Running {
				running = append(running, r.ID)
			}
			walk(r.Children)
		}
	}
	walk(list.Sessions)
	if len(running) != 1 || running[0] != subagentB {
		t.Fatalf("running %v, want %s alone", running, subagentB)
	}
	var one, other cairnhttp.SessionResponse
	MustGet(t, s, "/api/sessions/"+subagentB, &one)
	MustGet(t, s, "/api/sessions/"+sessionA, &other)
	if !one.Running || other.Running {
		t.Fatalf("running: %s %v, %s %v", subagentB, one.Running, sessionA, other.Running)
	}
}
