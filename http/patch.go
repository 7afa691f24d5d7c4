package http

import (
	"net/http"

	"github.com/cairn-dev/cairn"
)

// A PatchFunc returns the hunks a harness recorded for an edit in a
// stored raw line, numbered as in the file (see [cairn.Hunk]). cmd/cairn
// passes the Claude Code reader's (claudecode.EditPatch).
type PatchFunc func(raw []byte) ([]cairn.Hunk, error)

// handlePatch handles GET /api/sessions/{id}/lines/{line}/patch: the
// hunks recorded in the line of an edit's result, for the viewer to show
// the edit with the file's line numbers ({"hunks": [...]}).
func (s *Server) handlePatch(w http.ResponseWriter, r *http.Request) {
	if s.Patch == nil {
		Error(w, r, cairn.Errorf(cairn.ENOTFOUND, "This viewer reads no recorded edits."))
		return
	}
	raw, ok := s.storedLine(w, r)
	if !ok {
		return
	}
	hunks, err := s.Patch(raw)
	if err != nil {
		Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"hunks": hunks})
}
