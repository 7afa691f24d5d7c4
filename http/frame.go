package http

import (
	"net/http"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

func (s *Server) registerFrameRoutes() {
	s.mux.HandleFunc("GET /api/frames", s.handleFrames)
	s.mux.HandleFunc("GET /api/frames/{id}", s.handleFrame)
}

// A TreeFrame is a frame with its depth in the tree.
type TreeFrame struct {
	*cairn.Frame
	Depth int `json:"depth"`
}

// FramesResponse is the body of GET /api/frames: the tree in walking order
// (parents before children) and the frame being worked on.
type FramesResponse struct {
	Frames  []*TreeFrame `json:"frames"`
	Current string       `json:"current,omitempty"`
}

// handleFrames handles GET /api/frames.
func (s *Server) handleFrames(w http.ResponseWriter, r *http.Request) {
	tree, err := (&cairn.Stack{Frames: s.Frames}).Tree(r.Context())
	if err != nil {
		Error(w, r, err)
		return
	}
	resp := &FramesResponse{Frames: []*TreeFrame{}}
	tree.Walk(func(f *cairn.Frame, depth int) {
		resp.Frames = append(resp.Frames, &TreeFrame{Frame: f, Depth: depth})
	})
	if cur := tree.Current(""); cur != nil {
		resp.Current = cur.ID
	}
	writeJSON(w, http.StatusOK, resp)
}

// FrameResponse is the body of GET /api/frames/{id}: the frame and its
// log, the rounds tagged with it.
type FrameResponse struct {
	Frame  *cairn.Frame   `json:"frame"`
	Rounds []*cairn.Round `json:"rounds"`
	// SpawnedBy links each subagent session in the log to the tool call
	// that spawned it.
	SpawnedBy map[string]*surgery.Spawn `json:"spawned_by"`
}

// handleFrame handles GET /api/frames/{id}. Returns 404 for an unknown
// frame.
func (s *Server) handleFrame(w http.ResponseWriter, r *http.Request) {
	f, err := s.Frames.FindFrameByID(r.Context(), r.PathValue("id"))
	if err != nil {
		Error(w, r, err)
		return
	}
	rounds, err := s.Rounds.FindRounds(r.Context(), cairn.RoundFilter{FrameID: f.ID})
	if err != nil {
		Error(w, r, err)
		return
	}
	resp := &FrameResponse{Frame: f, Rounds: orEmpty(rounds), SpawnedBy: map[string]*surgery.Spawn{}}
	for _, rd := range rounds {
		if _, seen := resp.SpawnedBy[rd.SessionID]; seen || s.Sessions == nil {
			continue
		}
		sp, err := surgery.SpawnOf(r.Context(), s.surgery(), rd.SessionID)
		if err != nil {
			Error(w, r, err)
			return
		}
		if sp != nil {
			resp.SpawnedBy[rd.SessionID] = sp
		}
	}
	writeJSON(w, http.StatusOK, resp)
}
