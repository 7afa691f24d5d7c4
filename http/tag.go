package http

import (
	"net/http"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

func (s *Server) registerTagRoutes() {
	s.mux.HandleFunc("POST /api/sessions/{id}/tags", s.handleTag)
	s.mux.HandleFunc("POST /api/sessions/{id}/untag", s.handleUntag)
	s.mux.HandleFunc("POST /api/tags/suggest", s.handleSuggest)
	s.mux.HandleFunc("GET /api/matrix", s.handleMatrix)
}

// TagRequest is the body of POST /api/sessions/{id}/tags and …/untag.
type TagRequest struct {
	Engagement string `json:"engagement,omitempty"`
	Frame      string `json:"frame,omitempty"`
	Rounds     []int  `json:"rounds"`
}

// TagResponse says which rounds were tagged, and with what ("" when
// untagged).
type TagResponse struct {
	SessionID  string `json:"session_id"`
	Rounds     []int  `json:"rounds"`
	Engagement string `json:"engagement"`
}

// handleTag handles POST /api/sessions/{id}/tags: the rounds get the
// engagement, as "cairn tag" does. Returns 400 without rounds or an
// engagement, 404 for an unknown session or round.
func (s *Server) handleTag(w http.ResponseWriter, r *http.Request) {
	var req TagRequest
	sess, err := s.tagTarget(r, &req)
	if err != nil {
		Error(w, r, err)
		return
	}
	if err := s.Tags.TagRounds(r.Context(), sess.ID, req.Rounds, req.Engagement, req.Frame); err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, &TagResponse{SessionID: sess.ID, Rounds: req.Rounds, Engagement: req.Engagement})
}

// handleUntag handles POST /api/sessions/{id}/untag: the rounds lose their
// engagement, as "cairn untag" does.
func (s *Server) handleUntag(w http.ResponseWriter, r *http.Request) {
	var req TagRequest
	sess, err := s.tagTarget(r, &req)
	if err != nil {
		Error(w, r, err)
		return
	}
	if err := s.Tags.UntagRounds(r.Context(), sess.ID, req.Rounds); err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, &TagResponse{SessionID: sess.ID, Rounds: req.Rounds})
}

// tagTarget reads a tag request and the session it names.
func (s *Server) tagTarget(r *http.Request, req *TagRequest) (*cairn.Session, error) {
	if err := readJSON(r, req); err != nil {
		return nil, err
	} else if len(req.Rounds) == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "Name the rounds to tag.")
	}
	return s.Sessions.FindSessionByID(r.Context(), r.PathValue("id"))
}

// SuggestRequest is the body of POST /api/tags/suggest.
type SuggestRequest struct {
	Words   string `json:"words"`
	As      string `json:"as,omitempty"`      // the engagement; default: the words joined with '-'
	Session string `json:"session,omitempty"` // only this session
	Limit   int    `json:"limit,omitempty"`
}

// A Candidate is a suggested round, its snippet as HTML.
type Candidate struct {
	Hit     *SearchHit `json:"hit"`
	Matched int        `json:"matched"`
}

// SuggestResponse is the body of POST /api/tags/suggest: candidates to
// review; tagging the chosen ones is a separate request.
type SuggestResponse struct {
	Engagement string       `json:"engagement"`
	Candidates []*Candidate `json:"candidates"`
}

// handleSuggest handles POST /api/tags/suggest, as "cairn tag suggest"
// without --apply. It changes nothing, but is a POST so that its words
// need no URL encoding. Returns 400 without words.
func (s *Server) handleSuggest(w http.ResponseWriter, r *http.Request) {
	var req SuggestRequest
	if err := readJSON(r, &req); err != nil {
		Error(w, r, err)
		return
	}
	if req.Limit <= 0 || req.Limit > 500 {
		req.Limit = 50
	}
	sessionID := ""
	if req.Session != "" {
		sess, err := s.Sessions.FindSessionByID(r.Context(), req.Session)
		if err != nil {
			Error(w, r, err)
			return
		}
		sessionID = sess.ID
	}
	cands, err := surgery.Suggest(r.Context(), s.Searcher, req.Words, sessionID, req.Limit)
	if err != nil {
		Error(w, r, err)
		return
	}
	resp := &SuggestResponse{Engagement: req.As, Candidates: make([]*Candidate, len(cands))}
	if resp.Engagement == "" {
		resp.Engagement = surgery.EngagementID(req.Words)
	}
	for i, c := range cands {
		resp.Candidates[i] = &Candidate{Hit: &SearchHit{Hit: c.Hit, SnippetHTML: HighlightHTML(c.Hit.Snippet)}, Matched: c.Matched}
	}
	writeJSON(w, http.StatusOK, resp)
}

// MatrixResponse is the body of GET /api/matrix: the matrix as "cairn
// matrix --json" prints it, and the title of each session it names (the
// cells' and the calls' that spawned them), which the page shows in place
// of ids.
type MatrixResponse struct {
	*surgery.Matrix
	Titles map[string]string `json:"titles"`
}

// handleMatrix handles GET /api/matrix: the engagement × agent matrix of
// every tagged round (rows are engagement phases, columns agent roles).
func (s *Server) handleMatrix(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	mx, err := surgery.BuildMatrix(ctx, s.surgery())
	if err != nil {
		Error(w, r, err)
		return
	}
	if mx.Engagements == nil {
		mx.Engagements, mx.Agents = []string{}, []string{}
	}
	resp := &MatrixResponse{Matrix: mx, Titles: map[string]string{}}
	for _, row := range mx.Cells {
		for _, rounds := range row {
			for _, rd := range rounds {
				ids := []string{rd.SessionID}
				if rd.SpawnedBy != nil {
					ids = append(ids, rd.SpawnedBy.SessionID)
				}
				for _, id := range ids {
					if _, ok := resp.Titles[id]; ok || id == "" {
						continue
					}
					sess, err := s.Sessions.FindSessionByID(ctx, id)
					if cairn.ErrorCode(err) == cairn.ENOTFOUND {
						continue
					} else if err != nil {
						Error(w, r, err)
						return
					}
					resp.Titles[id] = sess.Title
				}
			}
		}
	}
	writeJSON(w, http.StatusOK, resp)
}
