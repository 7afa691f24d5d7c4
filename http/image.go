package http

import (
	"net/http"
	"strconv"

	"github.com/cairn-dev/cairn"
)

// MaxImageBytes bounds the bytes of an image the viewer serves: the
// Messages API takes none larger than 5 MB.
const MaxImageBytes = 8 << 20

// An ImageFunc returns the n'th image (from 0) of a stored raw line, as
// the reader names images in its blocks ("[image: image/png, 34.2 KB]"):
// its media type, one a browser runs no script in (PNG, JPEG, GIF, WebP),
// and its bytes, at most max of them. cmd/cairn passes the Claude Code
// reader's (claudecode.LineImage).
type ImageFunc func(raw []byte, n, max int) (mediaType string, data []byte, err error)

// handleImage handles GET /api/sessions/{id}/lines/{line}/images/{n}: the
// bytes of the n'th image of the line, for the viewer's thumbnails. An
// image is never redacted, so a viewer that redacts (beyond loopback)
// serves none: a screenshot shows what a redactor cannot find.
func (s *Server) handleImage(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 0 {
		Error(w, r, cairn.Errorf(cairn.EINVALID, "Image %q: want an image number.", r.PathValue("n")))
		return
	}
	if s.Image == nil || s.Redact != nil {
		Error(w, r, cairn.Errorf(cairn.ENOTFOUND, "This viewer shows no images."))
		return
	}
	raw, ok := s.storedLine(w, r)
	if !ok {
		return
	}
	typ, data, err := s.Image(raw, n, MaxImageBytes)
	if err != nil {
		Error(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", typ)
	h.Set("Content-Length", strconv.Itoa(len(data)))
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, max-age=3600")
	w.WriteHeader(http.StatusOK)
	w.Write(data)
}

// storedLine reads the raw line a request names ({id}, {line}), else
// answers the request with why not.
func (s *Server) storedLine(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	line, err := strconv.Atoi(r.PathValue("line"))
	if err != nil || line < 1 {
		Error(w, r, cairn.Errorf(cairn.EINVALID, "Line %q: want a line number.", r.PathValue("line")))
		return nil, false
	}
	lines, err := s.Lines.FindLines(r.Context(), r.PathValue("id"), line, line)
	if err != nil {
		Error(w, r, err)
		return nil, false
	} else if len(lines) == 0 {
		Error(w, r, cairn.Errorf(cairn.ENOTFOUND, "The session has no line %d.", line))
		return nil, false
	}
	return lines[0].Raw, true
}
