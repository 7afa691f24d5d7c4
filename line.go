package cairn

import (
	"bytes"
	"context"
	"strconv"
	"time"
	"unicode/utf8"
)

// LineStatus says how well a raw line parsed. Every line is stored whatever
// its status: nothing read is ever dropped.
type LineStatus string

const (
	LineOK          LineStatus = "ok"
	LineInvalidJSON LineStatus = "invalid-json" // kept raw, indexes nothing
	LineInvalidUTF8 LineStatus = "invalid-utf8" // kept raw, parsed with replacement characters
	LineUnknownType LineStatus = "unknown-type" // kept raw, indexes nothing
	LineBlank       LineStatus = "blank"
)

// A Line is one raw line of a transcript, kept byte for byte with its line
// terminator. The lines of a session, concatenated in order, are the file
// they were read from.
type Line struct {
	SessionID  string `json:"session_id"`
	Generation int    `json:"generation,omitempty"` // the file's version: bumped each time it was rewritten
	No         int    `json:"line"`                 // 1-based line number in the file
	Offset     int64  `json:"offset"`
	Raw        []byte `json:"-"`

	// What parsing found; an index over Raw.
	Type       string     `json:"type,omitempty"`
	UUID       string     `json:"uuid,omitempty"`
	ParentUUID string     `json:"parent_uuid,omitempty"`
	Timestamp  time.Time  `json:"timestamp"`
	RoundSeq   int        `json:"round"`
	Status     LineStatus `json:"status"`
}

// LineStore reads the block store.
type LineStore interface {
	// FindLines returns a session's lines numbered from and up to to
	// (inclusive; 0 means no bound), in order. Returns ENOTFOUND if the
	// session does not exist.
	FindLines(ctx context.Context, sessionID string, from, to int) ([]*Line, error)

	// FindAllLines returns every line the session ever stored, of every
	// generation, in generation then line order: the whole block store of
	// one session, for copying or verifying it. Returns ENOTFOUND if the
	// session does not exist.
	FindAllLines(ctx context.Context, sessionID string) ([]*Line, error)
}

// LineText is a raw line's text as a reader of a JSONL transcript parses
// it: without the white space around it, status LineBlank when nothing is
// left, LineInvalidUTF8 with each invalid byte a replacement character,
// LineOK otherwise.
func LineText(raw []byte) ([]byte, LineStatus) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil, LineBlank
	}
	if !utf8.Valid(t) {
		return bytes.ToValidUTF8(t, []byte("\uFFFD")), LineInvalidUTF8
	}
	return t, LineOK
}

// LineProblem is what an import reports of a line stored with status: ""
// for a line read whole; typ is the line's type, for one of a type the
// reader does not know.
func LineProblem(status LineStatus, typ string) string {
	switch status {
	case LineInvalidJSON:
		return "invalid JSON (kept raw)"
	case LineInvalidUTF8:
		return "invalid UTF-8 (kept raw, indexed with replacement characters)"
	case LineUnknownType:
		return "unknown line type " + strconv.Quote(typ) + " (kept raw)"
	}
	return ""
}
