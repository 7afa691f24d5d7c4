package gemini

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// A record is one line of a JSONL session, or one message of a .json
// document: the session's metadata ({sessionId, projectHash, startTime,
// …}), a message ({id, timestamp, type, content, …}; a message written
// again with the same id replaces the earlier one), a metadata update
// ({"$set": {…}}, whose messages, when set, replace the whole history) or
// a rewind ({"$rewindTo": id}: the messages from id on are dropped). Only
// the fields cairn reads; the line keeps the rest.
type record struct {
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	Kind        string `json:"kind"`

	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Thoughts  []thought       `json:"thoughts"`
	Tokens    *tokens         `json:"tokens"`
	Model     string          `json:"model"`
	ToolCalls []toolCall      `json:"toolCalls"`

	Set      *setRecord `json:"$set"`
	RewindTo *string    `json:"$rewindTo"`
}

type setRecord struct {
	Messages []record `json:"messages"`
}

type thought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

// text is a thought as the client sends it back: "**subject** description".
func (t thought) text() string {
	if t.Subject != "" {
		return "**" + t.Subject + "** " + t.Description
	}
	return t.Description
}

type tokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
}

// usage converts Gemini's counts, where input counts cached tokens too.
func (t *tokens) usage() cairn.Usage {
	return cairn.Usage{Input: max(t.Input-t.Cached, 0), Output: t.Output + t.Thoughts, CacheRead: t.Cached}
}

type toolCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Result json.RawMessage `json:"result"`
	Status string          `json:"status"`
	// AgentID is the session of the subagent the call ran (0.61 and
	// later: its file is chats/<this session>/<AgentID>.jsonl).
	AgentID string `json:"agentId"`
}

// A part is one part of a message's content.
type part struct {
	Text             string        `json:"text"`
	Thought          bool          `json:"thought"`
	FunctionCall     *functionCall `json:"functionCall"`
	FunctionResponse *functionResp `json:"functionResponse"`
	InlineData       *struct {
		MimeType string `json:"mimeType"`
	} `json:"inlineData"`
	FileData *struct {
		FileURI string `json:"fileUri"`
	} `json:"fileData"`
}

type functionCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResp struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// parts reads a content: a string, one part or a list of parts (strings
// among them).
func parts(raw json.RawMessage) []part {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []part{{Text: s}}
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		list = []json.RawMessage{raw}
	}
	var out []part
	for _, r := range list {
		var p part
		if json.Unmarshal(r, &s) == nil {
			p.Text = s
		} else if json.Unmarshal(r, &p) != nil {
			continue
		}
		out = append(out, p)
	}
	return out
}

// contentText returns a content's text parts (not thoughts) joined, with
// "[image]" or "[file]" for media.
func contentText(ps []part) string {
	var texts []string
	for _, p := range ps {
		switch {
		case p.FunctionCall != nil || p.FunctionResponse != nil || p.Thought:
		case p.InlineData != nil:
			texts = append(texts, "["+p.InlineData.MimeType+"]")
		case p.FileData != nil:
			texts = append(texts, "[file "+p.FileData.FileURI+"]")
		case p.Text != "":
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// responseText returns what a function response says: its output or
// error, else its JSON; failed when it reports an error.
func responseText(raw json.RawMessage) (text string, failed bool) {
	var r struct {
		Output json.RawMessage `json:"output"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &r) == nil {
		if s, ok := stringOf(r.Error); ok {
			return s, true
		}
		if s, ok := stringOf(r.Output); ok {
			return s, false
		}
	}
	return string(raw), false
}

func stringOf(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	return string(raw), true
}

// resultText returns a tool call's result: the text of its function
// responses (or its string).
func resultText(raw json.RawMessage) (text string, failed bool) {
	if s, ok := stringOf(raw); ok && len(bytes.TrimSpace(raw)) > 0 && raw[0] == '"' {
		return s, false
	}
	var texts []string
	for _, p := range parts(raw) {
		switch {
		case p.FunctionResponse != nil:
			t, f := responseText(p.FunctionResponse.Response)
			texts, failed = append(texts, t), failed || f
		case p.Text != "":
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), failed
}

// ignored reports whether a user message's text is not the user's words,
// as the client itself decides what resumes: empty, a slash or ? command,
// or context it wrote (<session_context>, <hook_context>).
func ignored(text string) bool {
	t := strings.TrimSpace(text)
	return t == "" || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "?") ||
		strings.HasPrefix(t, "<session_context>") || strings.HasPrefix(t, "<hook_context>")
}

// Line types, as cairn records them.
const (
	typeMetadata = "metadata"
	typeSet      = "$set"
	typeRewind   = "$rewindTo"
	typeDocument = "document" // a line of a .json document
)

// parseLine reads one JSONL line: its record and type, or a status saying
// why it has none.
func parseLine(raw []byte) (*record, string, cairn.LineStatus) {
	t, status := cairn.LineText(raw)
	if status == cairn.LineBlank {
		return nil, "", status
	}
	var r record
	if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &r) != nil {
		return nil, "", cairn.LineInvalidJSON
	}
	switch {
	case r.RewindTo != nil:
		return &r, typeRewind, status
	case r.Set != nil:
		return &r, typeSet, status
	case r.ID != "":
		return &r, r.Type, status
	case r.SessionID != "" && r.ProjectHash != "":
		return &r, typeMetadata, status
	}
	return &r, "", cairn.LineUnknownType
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
