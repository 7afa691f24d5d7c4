package http

import (
	"net/http"
	"strconv"

	"github.com/cairn-dev/cairn"
)

// A PatchFunc returns the hunks a harness recorded for an edit in a
// stored raw line, numbered as in the file (see [cairn.Hunk]). cmd/cairn
// passes the Claude Code reader's (claudecode.EditPatch).
type PatchFunc func(raw []byte) ([]cairn.Hunk, error)

// handlePatch handles GET /api/sessions/{id}/lines/{line}/patch: the
// hunks recorded in the line of an edit's result, for the viewer to show
// the edit with the file's line numbers ({"hunks": [...]}). Given the
// file (path) and the call (round, index) of a write the line records no
// hunks for, it answers the file's text before the call as the session's
// earlier calls wrote it ({"previous": text}, see [Server.previousText]),
// for the viewer to show the write as a diff against it; ENOTFOUND when
// the transcript does not hold it: the write made a new file, or one the
// session never wrote whole.
func (s *Server) handlePatch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	file := q.Get("path")
	if s.Patch == nil && file == "" {
		Error(w, r, cairn.Errorf(cairn.ENOTFOUND, "This viewer reads no recorded edits."))
		return
	}
	raw, ok := s.storedLine(w, r)
	if !ok {
		return
	}
	var err error = cairn.Errorf(cairn.ENOTFOUND, "This viewer reads no recorded edits.")
	if s.Patch != nil {
		var hunks []cairn.Hunk
		if hunks, err = s.Patch(raw); err == nil {
			writeJSON(w, http.StatusOK, map[string]any{"hunks": hunks})
			return
		}
	}
	if file == "" || cairn.ErrorCode(err) != cairn.ENOTFOUND {
		Error(w, r, err)
		return
	}
	seq, err1 := strconv.Atoi(q.Get("round"))
	index, err2 := strconv.Atoi(q.Get("index"))
	if err1 != nil || err2 != nil || seq < 0 || index < 0 {
		Error(w, r, cairn.Errorf(cairn.EINVALID, "A write's earlier text needs its call's round and index."))
		return
	}
	text, found, err := s.previousText(r.Context(), r.PathValue("id"), file, seq, index)
	if err != nil {
		Error(w, r, err)
		return
	} else if !found {
		Error(w, r, cairn.Errorf(cairn.ENOTFOUND, "The session wrote %s whole nowhere before.", file))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"previous": text})
}
