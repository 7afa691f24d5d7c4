package http

import (
	"context"
	"net/http"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/retention"
)

// RetentionFunc measures what each way of continuing a session keeps of
// it, as `cairn eval retention` does: cmd/cairn hands the viewer the same
// function, with the client whose view it judges.
type RetentionFunc func(ctx context.Context, session string) (*retention.Report, error)

func (s *Server) registerRetentionRoutes() {
	s.mux.HandleFunc("GET /api/sessions/{id}/retention", s.handleRetention)
}

// handleRetention handles GET /api/sessions/{id}/retention: the report
// `cairn eval retention --json` prints (the scores of each variant,
// strict and lenient, by category, with the steps each reaches). Returns
// 404 when the session does not exist or the viewer measures nothing, 413
// when the session has more than [Server.MaxSessionBlocks] blocks.
func (s *Server) handleRetention(w http.ResponseWriter, r *http.Request) {
	if s.Retention == nil {
		Error(w, r, cairn.Errorf(cairn.ENOTFOUND, "This viewer does not measure retention."))
		return
	}
	if s.tooLarge(w, r, "measures", "cairn eval retention") {
		return
	}
	rep, err := s.Retention(r.Context(), r.PathValue("id"))
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}
