package http

import (
	"context"
	"html"
	"net/http"
	"strings"

	"github.com/cairn-dev/cairn"
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

// SearchResponse is the body of GET /api/search: a page of hits from
// Offset; Total counts them all when More is false. When More is true,
// Total is the store's count of them when it gives one (TotalMore: there
// are more than Total, the count stopped at MaxSearchCount or at what the
// store reads to count), else 0: there are more than Offset + len(Hits).
type SearchResponse struct {
	Query     string       `json:"query"`
	Hits      []*SearchHit `json:"hits"`
	Offset    int          `json:"offset"`
	More      bool         `json:"more"`
	Total     int          `json:"total,omitempty"`
	TotalMore bool         `json:"total_more,omitempty"`
}

// MaxSearchCount is how far a search's hits are counted: the page says
// "1,000+" beyond.
const MaxSearchCount = 1000

// MaxSearchOffset is how far into a search's hits a page may begin: the
// store finds every hit before the page's.
const MaxSearchOffset = 5000

// handleSearch handles
// GET /api/search?q=&session=&project=&agent=&role=&tool=&since=&until=&limit=&offset=,
// agent being the harness (claude-code, codex, gemini, opencode) as in GET
// /api/sessions, role whose words (user, agent) or which part of a call
// (call, output), tool a tool's name: at most one hit per step, each with
// its step and ref (ROUND.STEP), limit of them from offset, and whether
// there are more (the store is asked for one more than the page), then
// how many (Total). Words in double quotes must be found as a phrase.
// Returns 400 for an empty query.
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := r.URL.Query()
	q := cairn.SearchQuery{Text: p.Get("q"), Project: p.Get("project"), Agent: p.Get("agent"), Tool: p.Get("tool"), Steps: true}
	if role := p.Get("role"); role != "" {
		var err error
		if q.Kinds, err = cairn.RoleKinds(role); err != nil {
			Error(w, r, err)
			return
		}
	}
	var err error
	var limit, offset int
	if limit, err = intParam(p.Get("limit"), 20, 1, 500); err != nil {
		Error(w, r, err)
		return
	} else if offset, err = intParam(p.Get("offset"), 0, 0, MaxSearchOffset); err != nil {
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
	q.Limit = offset + limit + 1
	hits, err := s.Searcher.Search(ctx, q)
	if err != nil {
		Error(w, r, err)
		return
	}
	if s.RedactHits != nil {
		hits = s.RedactHits(q.Text, hits)
	}
	resp := &SearchResponse{Query: q.Text, Offset: offset, More: len(hits) > offset+limit}
	if !resp.More {
		resp.Total = len(hits)
	} else if err := s.countHits(ctx, q, resp, len(hits)); err != nil {
		Error(w, r, err)
		return
	}
	hits = hits[min(offset, len(hits)):min(offset+limit, len(hits))]
	resp.Hits = make([]*SearchHit, len(hits))
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

// countHits sets resp's Total from the store's count of q's hits, when it
// counts them and the count is of what the page shows: not for a
// redacting viewer, whose count would include what redaction hides. seen
// is how many hits the search found, which the count is at least.
func (s *Server) countHits(ctx context.Context, q cairn.SearchQuery, resp *SearchResponse, seen int) error {
	c, ok := s.Searcher.(cairn.SearchCounter)
	if !ok || s.RedactHits != nil {
		return nil
	}
	n, more, err := c.CountHits(ctx, q, MaxSearchCount)
	if err != nil {
		return err
	}
	// Fewer than the search found: the count read other blocks than the
	// search ranked; there are at least as many as found.
	resp.Total, resp.TotalMore = max(n, seen), more || n < seen
	return nil
}

// HighlightHTML escapes a snippet for HTML, then turns the
// [cairn.HighlightStart] and [cairn.HighlightEnd] markers into <mark> and
// </mark>. Escaping first means no text of a transcript becomes markup.
func HighlightHTML(snippet string) string {
	return strings.NewReplacer(cairn.HighlightStart, "<mark>", cairn.HighlightEnd, "</mark>").Replace(html.EscapeString(snippet))
}
