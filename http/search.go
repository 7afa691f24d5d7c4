package http

import (
	"html"
	"net/http"
	"strings"

	"cairn"
)

func (s *Server) registerSearchRoutes() {
	s.mux.HandleFunc("GET /api/search", s.handleSearch)
}

// A SearchHit is a hit with its snippet as HTML (escaped, the matches in
// <mark>) and what names its session: title, and for a subagent its agent
// and parent.
type SearchHit struct {
	*cairn.Hit
	SnippetHTML string `json:"snippet_html"`
	Title       string `json:"title,omitempty"`
	Lineage     string `json:"lineage,omitempty"`
	AgentID     string `json:"agent_id,omitempty"`
	Parent      string `json:"parent,omitempty"`
}

// SearchResponse is the body of GET /api/search.
type SearchResponse struct {
	Query string       `json:"query"`
	Hits  []*SearchHit `json:"hits"`
}

// handleSearch handles
// GET /api/search?q=&session=&project=&agent=&since=&until=&limit=, agent
// being the harness (claude-code, codex, gemini, opencode) as in GET
// /api/sessions: at most one hit per step, each with its step and ref
// (ROUND.STEP). Returns 400 for an empty query.
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := r.URL.Query()
	q := cairn.SearchQuery{Text: p.Get("q"), Project: p.Get("project"), Agent: p.Get("agent"), Steps: true}
	var err error
	if q.Limit, err = intParam(p.Get("limit"), 20, 1, 500); err != nil {
		Error(w, r, err)
		return
	} else if q.Since, err = parseTime(p.Get("since")); err != nil {
		Error(w, r, err)
		return
	} else if q.Until, err = parseTime(p.Get("until")); err != nil {
		Error(w, r, err)
		return
	}
	if ref := p.Get("session"); ref != "" {
		sess, err := s.Sessions.FindSessionByID(ctx, ref)
		if err != nil {
			Error(w, r, err)
			return
		}
		q.SessionID = sess.ID
	}
	hits, err := s.Searcher.Search(ctx, q)
	if err != nil {
		Error(w, r, err)
		return
	}
	if s.RedactHits != nil {
		hits = s.RedactHits(q.Text, hits)
	}
	resp := &SearchResponse{Query: q.Text, Hits: make([]*SearchHit, len(hits))}
	sessions := map[string]*cairn.Session{}
	for i, h := range hits {
		sh := &SearchHit{Hit: h, SnippetHTML: HighlightHTML(h.Snippet)}
		sess, ok := sessions[h.SessionID]
		if !ok {
			if sess, err = s.Sessions.FindSessionByID(ctx, h.SessionID); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
				Error(w, r, err)
				return
			}
			sessions[h.SessionID] = sess
		}
		if sess != nil {
			sh.Title, sh.Lineage, sh.AgentID, sh.Parent = sess.Title, sess.Lineage, sess.AgentID, sess.Parent
		}
		resp.Hits[i] = sh
	}
	writeJSON(w, http.StatusOK, resp)
}

// HighlightHTML escapes a snippet for HTML, then turns the
// [cairn.HighlightStart] and [cairn.HighlightEnd] markers into <mark> and
// </mark>. Escaping first means no text of a transcript becomes markup.
func HighlightHTML(snippet string) string {
	return strings.NewReplacer(cairn.HighlightStart, "<mark>", cairn.HighlightEnd, "</mark>").Replace(html.EscapeString(snippet))
}
