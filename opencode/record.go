package opencode

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// Kinds of record a line holds.
const (
	KindSession = "session"
	KindMessage = "message"
	KindPart    = "part"
)

// A Record is one line of a session's canonical log: one of opencode's own
// documents (a session, a message, a part) as its store holds it. Row holds
// the columns of its SQLite row but data, each as the driver gave it (a
// JSON text column stays a string); Data holds its data column, or the
// whole file of the JSON storage era, byte for byte but for whitespace.
// Nothing is dropped, so the log is lossless and a later version of the
// same document (same Kind and ID) is appended, never written over.
type Record struct {
	Kind string                     `json:"opencode"`
	ID   string                     `json:"id"`
	Row  map[string]json.RawMessage `json:"row,omitempty"`
	Data json.RawMessage            `json:"data,omitempty"`
}

// Line returns the record as one line with its terminator.
func (r *Record) Line() []byte {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // every field is JSON already
	}
	return append(b, '\n')
}

// col returns a string column of the row ("" when absent or not a string).
func (r *Record) col(name string) string {
	var s string
	_ = json.Unmarshal(r.Row[name], &s)
	return s
}

// intCol returns an integer column of the row (0 when absent).
func (r *Record) intCol(name string) int64 {
	var n int64
	_ = json.Unmarshal(r.Row[name], &n)
	return n
}

// parseRecord reads a line; a line that is not a record is reported by
// its status.
func parseRecord(raw []byte) (*Record, cairn.LineStatus) {
	raw = bytes.TrimRight(raw, "\r\n")
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, cairn.LineBlank
	}
	var r Record
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, cairn.LineInvalidJSON
	}
	switch r.Kind {
	case KindSession, KindMessage, KindPart:
	default:
		return &r, cairn.LineUnknownType
	}
	if !utf8.Valid(raw) {
		return &r, cairn.LineInvalidUTF8
	}
	return &r, cairn.LineOK
}

// message is the part of a message document cairn reads; the JSON storage
// era keeps id and sessionID in it, SQLite in columns.
type message struct {
	Role    string `json:"role"`
	ModelID string `json:"modelID"`
	Time    struct {
		Created   int64 `json:"created"`
		Completed int64 `json:"completed"`
	} `json:"time"`
	Tokens *tokens `json:"tokens"`
}

type tokens struct {
	Input     int64 `json:"input"`
	Output    int64 `json:"output"`
	Reasoning int64 `json:"reasoning"`
	Cache     struct {
		Read  int64 `json:"read"`
		Write int64 `json:"write"`
	} `json:"cache"`
}

// part is the part of a part document cairn reads.
type part struct {
	MessageID string `json:"messageID"`
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	Ignored   bool   `json:"ignored"`
	Tool      string `json:"tool"`
	CallID    string `json:"callID"`
	State     *struct {
		Status string          `json:"status"`
		Input  json.RawMessage `json:"input"`
		Output string          `json:"output"`
		Error  string          `json:"error"`
		// Metadata.SessionID is the subagent session a task call ran.
		Metadata struct {
			SessionID string `json:"sessionId"`
		} `json:"metadata"`
	} `json:"state"`
	Filename string `json:"filename"`
	URL      string `json:"url"`
	Time     *struct {
		Start int64 `json:"start"`
	} `json:"time"`
}

// session is the part of a session document (JSON storage era) cairn reads.
type session struct {
	ID        string `json:"id"`
	ParentID  string `json:"parentID"`
	Directory string `json:"directory"`
	Title     string `json:"title"`
	Version   string `json:"version"`
	Time      struct {
		Created int64 `json:"created"`
	} `json:"time"`
}

// sessionOf reads a session record from either era.
func sessionOf(r *Record) session {
	var s session
	_ = json.Unmarshal(r.Data, &s)
	if r.Row != nil {
		s.ID = r.ID
		s.ParentID = r.col("parent_id")
		s.Directory = r.col("directory")
		s.Title = r.col("title")
		s.Version = r.col("version")
		s.Time.Created = r.intCol("time_created")
	}
	if s.ID == "" {
		s.ID = r.ID
	}
	return s
}
