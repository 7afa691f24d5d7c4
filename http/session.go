package http

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"cairn"
)

func (s *Server) registerSessionRoutes() {
	s.mux.HandleFunc("GET /api/sessions", s.handleSessions)
	s.mux.HandleFunc("GET /api/sessions/{id}", s.handleSession)
}

// SessionsResponse is the body of GET /api/sessions.
type SessionsResponse struct {
	Sessions []*cairn.Session `json:"sessions"`
	Total    int              `json:"total"`
}

// handleSessions handles GET /api/sessions?project=&since=&until=&subagents=&offset=&limit=.
func (s *Server) handleSessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	filter := cairn.SessionFilter{Project: q.Get("project"), Subagents: q.Get("subagents") == "true", Agent: q.Get("agent")}
	var err error
	if filter.Since, err = parseTime(q.Get("since")); err != nil {
		Error(w, r, err)
		return
	} else if filter.Until, err = parseTime(q.Get("until")); err != nil {
		Error(w, r, err)
		return
	} else if filter.Offset, err = intParam(q.Get("offset"), 0, 0, 1<<30); err != nil {
		Error(w, r, err)
		return
	} else if filter.Limit, err = intParam(q.Get("limit"), 50, 1, 1000); err != nil {
		Error(w, r, err)
		return
	}
	sessions, n, err := s.Sessions.FindSessions(r.Context(), filter)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, &SessionsResponse{Sessions: orEmpty(sessions), Total: n})
}

// SessionResponse is the body of GET /api/sessions/{id}: the session and
// its lineage: the session it came from, and those that came from it
// (subagents, and surgery's exports, a merge's from both parents).
type SessionResponse struct {
	Session  *cairn.Session   `json:"session"`
	Parent   *cairn.Session   `json:"parent,omitempty"`
	Children []*cairn.Session `json:"children"`
}

// handleSession handles GET /api/sessions/{id}. The id may be a unique
// prefix, as on the command line.
func (s *Server) handleSession(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	sess, err := s.Sessions.FindSessionByID(ctx, r.PathValue("id"))
	if err != nil {
		Error(w, r, err)
		return
	}
	resp := &SessionResponse{Session: sess, Children: []*cairn.Session{}}
	if sess.Parent != "" {
		if resp.Parent, err = s.Sessions.FindSessionByID(ctx, sess.Parent); cairn.ErrorCode(err) == cairn.ENOTFOUND {
			resp.Parent = nil // the parent was never imported
		} else if err != nil {
			Error(w, r, err)
			return
		}
	}
	all, _, err := s.Sessions.FindSessions(ctx, cairn.SessionFilter{Subagents: true})
	if err != nil {
		Error(w, r, err)
		return
	}
	for _, c := range all {
		if c.Parent == sess.ID || slices.Contains(c.Parents, sess.ID) {
			resp.Children = append(resp.Children, c)
		}
	}
	slices.SortFunc(resp.Children, func(a, b *cairn.Session) int { return a.StartedAt.Compare(b.StartedAt) })
	writeJSON(w, http.StatusOK, resp)
}

// parseTime reads an RFC 3339 time or a date; "" is the zero time.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, cairn.Errorf(cairn.EINVALID, "Cannot read %q as a time: use 2026-03-19 or 2026-03-19T10:23Z.", s)
}

// intParam reads an integer query parameter between lo and hi, def when
// empty.
func intParam(s string, def, lo, hi int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, cairn.Errorf(cairn.EINVALID, "%q: want a number from %d to %d.", s, lo, hi)
	}
	return n, nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
