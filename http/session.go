package http

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

func (s *Server) registerSessionRoutes() {
	s.mux.HandleFunc("GET /api/sessions", s.handleSessions)
	s.mux.HandleFunc("GET /api/sessions/{id}", s.handleSession)
}

// SessionsResponse is the body of GET /api/sessions.
type SessionsResponse struct {
	Sessions []*SessionRow `json:"sessions"`
	Total    int           `json:"total"`
}

// A SessionRow is a session in the list: with tree=true, the sessions that
// came from it (subagents, surgery's children) nested under it.
type SessionRow struct {
	*cairn.Session
	Children []*SessionRow `json:"children,omitempty"`
	// Running: the watcher imported it within RunningFor.
	Running bool `json:"running,omitempty"`
}

// Sort orders of the sessions list.
var sessionSorts = map[string]func(a, b *cairn.Session) int{
	"time":   func(a, b *cairn.Session) int { return a.EndedAt.Compare(b.EndedAt) },
	"tokens": func(a, b *cairn.Session) int { return cmp.Compare(sessionTokens(a), sessionTokens(b)) },
	"rounds": func(a, b *cairn.Session) int { return cmp.Compare(a.Rounds, b.Rounds) },
	"duration": func(a, b *cairn.Session) int {
		return cmp.Compare(a.EndedAt.Sub(a.StartedAt), b.EndedAt.Sub(b.StartedAt))
	},
	"lines": func(a, b *cairn.Session) int { return cmp.Compare(a.Lines, b.Lines) },
	"tools": func(a, b *cairn.Session) int { return cmp.Compare(a.ToolCalls, b.ToolCalls) },
}

// sessionTokens is what the list sorts by as a session's tokens: those
// its requests read (input and cache) and wrote.
func sessionTokens(s *cairn.Session) int64 { return s.Usage.Context() + s.Usage.Output }

// handleSessions handles GET /api/sessions?project=&in=&since=&until=&subagents=&sort=&order=&group=&tree=&offset=&limit=.
// project selects a folder as the CLI does (exact, or a prefix ending in
// '/' or '*'); in keeps the sessions whose project contains it. sort is
// time (default), tokens, rounds, duration, tools (tool calls) or lines,
// order desc (default) or asc; group=project keeps each project's sessions
// together (groupByProject). Each session carries its tool calls
// (tool_calls). With tree=true, children are nested under their parents
// and offset, limit and total count the top rows.
func (s *Server) handleSessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	filter := cairn.SessionFilter{Project: q.Get("project"), Subagents: q.Get("subagents") == "true", Agent: q.Get("agent"), ToolCalls: true}
	by := q.Get("sort")
	less, ok := sessionSorts[cmp.Or(by, "time")]
	if !ok {
		Error(w, r, cairn.Errorf(cairn.EINVALID, "Cannot sort sessions by %q: use time, tokens, rounds, duration, tools or lines.", by))
		return
	}
	asc := q.Get("order") == "asc"
	if o := q.Get("order"); o != "" && o != "asc" && o != "desc" {
		Error(w, r, cairn.Errorf(cairn.EINVALID, "Order %q: use asc or desc.", o))
		return
	}
	in, tree, group := q.Get("in"), q.Get("tree") == "true", q.Get("group")
	if group != "" && group != "project" {
		Error(w, r, cairn.Errorf(cairn.EINVALID, "Cannot group sessions by %q: use project.", group))
		return
	}
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
	if by == "" && in == "" && !tree && !asc && group == "" {
		// The store's own order and page: the newest first.
		sessions, n, err := s.Sessions.FindSessions(r.Context(), filter)
		if err != nil {
			Error(w, r, err)
			return
		}
		resp := &SessionsResponse{Sessions: []*SessionRow{}, Total: n}
		for _, sess := range sessions {
			resp.Sessions = append(resp.Sessions, &SessionRow{Session: sess})
		}
		s.markRunning(resp.Sessions)
		writeJSON(w, http.StatusOK, resp)
		return
	}
	page := filter
	page.Offset, page.Limit, page.Subagents = 0, 0, filter.Subagents || tree
	all, _, err := s.Sessions.FindSessions(r.Context(), page)
	if err != nil {
		Error(w, r, err)
		return
	}
	if in != "" {
		all = slices.DeleteFunc(all, func(s *cairn.Session) bool { return !strings.Contains(strings.ToLower(s.Project), strings.ToLower(in)) })
	}
	order := func(a, b *SessionRow) int {
		c := less(a.Session, b.Session)
		if !asc {
			c = -c
		}
		return cmp.Or(c, strings.Compare(a.ID, b.ID))
	}
	rows := sessionRows(all, tree)
	if !filter.Subagents {
		rows = slices.DeleteFunc(rows, func(r *SessionRow) bool { return r.IsSubagent() })
	}
	slices.SortFunc(rows, order)
	if group == "project" {
		groupByProject(rows)
	}
	resp := &SessionsResponse{Sessions: []*SessionRow{}, Total: len(rows)}
	if filter.Offset < len(rows) {
		resp.Sessions = rows[filter.Offset:min(len(rows), filter.Offset+filter.Limit)]
	}
	s.markRunning(resp.Sessions)
	writeJSON(w, http.StatusOK, resp)
}

// groupByProject puts sorted rows together by project, keeping their order
// within each project, the projects in the order of their first row: a
// page of the list holds a project's rows one after the other.
func groupByProject(rows []*SessionRow) {
	first := make(map[string]int)
	for i, r := range rows {
		if _, ok := first[r.Project]; !ok {
			first[r.Project] = i
		}
	}
	slices.SortStableFunc(rows, func(a, b *SessionRow) int { return cmp.Compare(first[a.Project], first[b.Project]) })
}

// sessionRows returns the sessions as rows; with tree, a session whose
// parent is among them is nested under it (children oldest first), and a
// subagent or child whose parent is absent stays a top row.
func sessionRows(sessions []*cairn.Session, tree bool) []*SessionRow {
	rows := make(map[string]*SessionRow, len(sessions))
	for _, sess := range sessions {
		rows[sess.ID] = &SessionRow{Session: sess}
	}
	var top []*SessionRow
	for _, sess := range sessions {
		row := rows[sess.ID]
		if p, ok := rows[sess.Parent]; tree && ok && sess.Parent != sess.ID {
			p.Children = append(p.Children, row)
			continue
		}
		top = append(top, row)
	}
	for _, row := range rows {
		slices.SortFunc(row.Children, func(a, b *SessionRow) int { return a.StartedAt.Compare(b.StartedAt) })
	}
	return top
}

// SessionResponse is the body of GET /api/sessions/{id}: the session and
// its lineage: the session it came from, and those that came from it
// (subagents, and surgery's exports, a merge's from both parents).
type SessionResponse struct {
	Session  *cairn.Session  `json:"session"`
	Running  bool            `json:"running,omitempty"` // as in SessionRow
	Parent   *cairn.Session  `json:"parent,omitempty"`
	Children []*SessionChild `json:"children"`
}

// A SessionChild is a session that came from another, with the
// engagements its rounds are tagged with (a split child's label).
type SessionChild struct {
	*cairn.Session
	Engagements []string `json:"engagements,omitempty"`
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
	resp := &SessionResponse{Session: sess, Running: s.Running(sess.ID), Children: []*SessionChild{}}
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
		if c.Parent != sess.ID && !slices.Contains(c.Parents, sess.ID) {
			continue
		}
		child := &SessionChild{Session: c}
		if c.Lineage == cairn.LineageSurgery {
			tagged, err := s.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: c.ID, Tagged: true})
			if err != nil {
				Error(w, r, err)
				return
			}
			for _, rd := range tagged {
				if !slices.Contains(child.Engagements, rd.EngagementID) {
					child.Engagements = append(child.Engagements, rd.EngagementID)
				}
			}
		}
		resp.Children = append(resp.Children, child)
	}
	slices.SortFunc(resp.Children, func(a, b *SessionChild) int { return a.StartedAt.Compare(b.StartedAt) })
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
