// Package http serves cairn's engagement viewer: a JSON API over the store
// and a web page embedded in the binary. The API calls the same functions
// the CLI does; this package only translates requests and errors.
//
// # Security
//
// The server binds loopback unless told otherwise, and then requires a
// token (a bearer header, or a cookie set from a one-time login URL).
// Requests that change anything must carry the [CSRFHeader], which a page
// on another site cannot send without a CORS preflight this server never
// answers. Only embedded files and the store are served: no request names
// a path on disk.
//
// # Limits
//
// Stalled and unauthenticated clients cannot hold the server down: until
// a request on it is authorized, a connection is pending, and the oldest
// pending ones are closed to make room for new ones (limit.go), so a
// client that sends the token is always served. Heavy requests take one
// of [Server.MaxHeavy] slots (a session's whole work and a round's page
// apart), a few wait a short while for one and any other is answered 503
// with Retry-After (heavy.go), and a round's blocks are read a page at a
// time ([MaxPageBlocks], [MaxPageBytes]), so memory and time are bounded
// whatever the round's size and however many ask at once. What one
// request names (ids, words, rounds, texts) is capped before its handler
// works (a body's caps where it is decoded, once), and event streams are
// at most [MaxEventStreams] (bounds.go).
package http

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"

	"github.com/cairn-dev/cairn"
)

// codes maps each domain error code to its HTTP status.
var codes = map[string]int{
	cairn.ECONFLICT: http.StatusConflict,
	cairn.EINVALID:  http.StatusBadRequest,
	cairn.ENOTFOUND: http.StatusNotFound,
	cairn.EINTERNAL: http.StatusInternalServerError,
}

// ErrorStatusCode returns the HTTP status for a domain error code.
func ErrorStatusCode(code string) int {
	if v, ok := codes[code]; ok {
		return v
	}
	return http.StatusInternalServerError
}

// ErrorResponse is the body of every error: {"error": message}.
type ErrorResponse struct {
	Error string `json:"error"`
}

// Error writes err as JSON with the status its code maps to. Internal
// errors are logged and answered with a generic message, so nothing about
// the machine leaks to the client.
func Error(w http.ResponseWriter, r *http.Request, err error) {
	if c, ok := err.(*capError); ok {
		writeJSON(w, c.status, &ErrorResponse{Error: c.message})
		return
	}
	code, message := cairn.ErrorCode(err), cairn.ErrorMessage(err)
	if code == cairn.EINTERNAL {
		LogError(r, err)
	}
	writeJSON(w, ErrorStatusCode(code), &ErrorResponse{Error: message})
}

// LogError logs an internal error with the request it failed.
func LogError(r *http.Request, err error) {
	log.Printf("http: error: %s %s: %s", r.Method, r.URL.Path, err)
}

// writeJSON writes v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		log.Printf("http: write response: %s", err)
	}
}

// readJSON decodes the request body into v, at most [MaxBodyBytes], once,
// rejecting unknown fields and anything after the value, then checks its
// caps (bounds.go). Returns EINVALID for a malformed body, a capError for
// one past a cap.
func readJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, MaxBodyBytes))
	dec.DisallowUnknownFields()
	var tooLarge *http.MaxBytesError
	if err := dec.Decode(v); errors.As(err, &tooLarge) {
		return &capError{http.StatusRequestEntityTooLarge, fmt.Sprintf("The request's body is more than %d bytes.", MaxBodyBytes)}
	} else if err != nil {
		return cairn.Errorf(cairn.EINVALID, "Request body: %v.", err)
	}
	if dec.More() {
		return cairn.Errorf(cairn.EINVALID, "Request body: more than one JSON value.")
	}
	if c, ok := v.(capped); ok {
		return c.caps()
	}
	return nil
}
