package http

import (
	"context"
	"net/http"

	"cairn"
	"cairn/surgery"
)

// An Exported is a session an action wrote for an agent to resume.
type Exported struct {
	ID        string   `json:"id"`
	Path      string   `json:"path"`
	Operation string   `json:"operation"`
	Label     string   `json:"label,omitempty"` // a split child's engagement
	Parents   []string `json:"parents"`
	Full      int      `json:"full"`   // rounds in full
	Index     int      `json:"index"`  // rounds as index lines
	Resume    string   `json:"resume"` // the command that resumes it
}

// ExportFunc writes a materialization as a session the agent's client
// resumes, registers it in the store with its lineage, and says where it
// is. cmd/cairn provides the Claude Code writer the CLI uses.
type ExportFunc func(ctx context.Context, m *cairn.Materialization) (*Exported, error)

func (s *Server) registerSurgeryRoutes() {
	s.mux.HandleFunc("POST /api/sessions/{id}/split", s.handleSplit)
	s.mux.HandleFunc("POST /api/sessions/{id}/extract", s.handleExtract)
	s.mux.HandleFunc("POST /api/sessions/{id}/revive", s.handleRevive)
}

func (s *Server) surgery() surgery.Store {
	return surgery.Store{Sessions: s.Sessions, Rounds: s.Rounds, Lines: s.Lines, Engagements: s.Engagements}
}

// SurgeryRequest is the body of the surgical actions; each uses the
// fields its CLI command takes.
type SurgeryRequest struct {
	Fidelity string `json:"fidelity,omitempty"` // full (default), partial, text, or per kind

	// split: the map, as "cairn split" reads it ("5-9=console"); rounds
	// it leaves out go to Rest when set, else are shared.
	Map  string `json:"map,omitempty"`
	Rest string `json:"rest,omitempty"`

	// extract: the engagement; revive: the engagement to compress.
	Engagement string `json:"engagement,omitempty"`

	// revive: compress the rounds before this round number or time.
	Before string `json:"before,omitempty"`
}

// SurgeryResponse lists the sessions an action wrote.
type SurgeryResponse struct {
	Results []*Exported `json:"results"`
}

// handleSplit handles POST /api/sessions/{id}/split, as "cairn split":
// one child session per engagement of the map.
func (s *Server) handleSplit(w http.ResponseWriter, r *http.Request) {
	s.surgical(w, r, func(ctx context.Context, id string, req *SurgeryRequest, f cairn.Fidelity) ([]*cairn.Materialization, error) {
		sm, err := surgery.ParseSplitMap(req.Map)
		if err != nil {
			return nil, err
		}
		if req.Rest != "" {
			sess, err := s.Sessions.FindSessionByID(ctx, id)
			if err != nil {
				return nil, err
			}
			rounds, err := s.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID, FromSeq: 1})
			if err != nil {
				return nil, err
			}
			for _, rd := range rounds {
				if _, ok := sm[rd.Seq]; !ok {
					sm[rd.Seq] = req.Rest
				}
			}
		}
		return surgery.Split(ctx, s.surgery(), id, sm, f)
	})
}

// handleExtract handles POST /api/sessions/{id}/extract, as "cairn
// extract-engagement": the engagement's rounds in full.
func (s *Server) handleExtract(w http.ResponseWriter, r *http.Request) {
	s.surgical(w, r, func(ctx context.Context, id string, req *SurgeryRequest, f cairn.Fidelity) ([]*cairn.Materialization, error) {
		if req.Engagement == "" {
			return nil, cairn.Errorf(cairn.EINVALID, "Name the engagement to extract.")
		}
		m, err := surgery.ExtractEngagement(ctx, s.surgery(), id, req.Engagement, f)
		return []*cairn.Materialization{m}, err
	})
}

// handleRevive handles POST /api/sessions/{id}/revive, as "cairn revive":
// older work compressed, a session to resume.
func (s *Server) handleRevive(w http.ResponseWriter, r *http.Request) {
	s.surgical(w, r, func(ctx context.Context, id string, req *SurgeryRequest, f cairn.Fidelity) ([]*cairn.Materialization, error) {
		m, err := surgery.Revive(ctx, s.surgery(), id, req.Before, req.Engagement, f)
		return []*cairn.Materialization{m}, err
	})
}

// surgical reads a surgery request, runs op and exports what it made.
func (s *Server) surgical(w http.ResponseWriter, r *http.Request, op func(context.Context, string, *SurgeryRequest, cairn.Fidelity) ([]*cairn.Materialization, error)) {
	ctx := r.Context()
	var req SurgeryRequest
	if err := readJSON(r, &req); err != nil {
		Error(w, r, err)
		return
	}
	f, err := cairn.ParseFidelity(req.Fidelity)
	if err != nil {
		Error(w, r, err)
		return
	}
	ms, err := op(ctx, r.PathValue("id"), &req, f)
	if err != nil {
		Error(w, r, err)
		return
	}
	if s.Export == nil {
		Error(w, r, cairn.Errorf(cairn.EINTERNAL, "No exporter configured."))
		return
	}
	resp := &SurgeryResponse{Results: []*Exported{}}
	for _, m := range ms {
		e, err := s.Export(ctx, m)
		if err != nil {
			Error(w, r, err)
			return
		}
		e.Operation, e.Label, e.Full, e.Index = m.Operation, m.Label, len(m.FullPieces()), len(m.IndexRounds())
		resp.Results = append(resp.Results, e)
	}
	writeJSON(w, http.StatusOK, resp)
}
