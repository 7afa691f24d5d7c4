package claudecode

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"cairn"
)

// An entry is the part of a transcript line cairn reads. Everything else in
// the line is kept only in the raw bytes, which is how unknown fields survive.
type entry struct {
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	UUID              string          `json:"uuid"`
	ParentUUID        *string         `json:"parentUuid"`
	LogicalParentUUID string          `json:"logicalParentUuid"`
	SessionID         string          `json:"sessionId"`
	Timestamp         string          `json:"timestamp"`
	IsSidechain       bool            `json:"isSidechain"`
	IsMeta            bool            `json:"isMeta"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	AgentID           string          `json:"agentId"`
	Cwd               string          `json:"cwd"`
	Version           string          `json:"version"`
	GitBranch         string          `json:"gitBranch"`
	Message           *message        `json:"message"`
	ToolUseResult     json.RawMessage `json:"toolUseResult"`
	Content           json.RawMessage `json:"content"` // system lines

	Summary     string `json:"summary"`     // 1.0.x summary lines
	CustomTitle string `json:"customTitle"` // custom-title lines
	AITitle     string `json:"aiTitle"`     // ai-title lines
}

type message struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *usage          `json:"usage"`
}

type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// chainTypes are the line types that form the conversation's parentUuid
// chain; metaTypes are the metadata lines known to exist. A line of any
// other type is kept raw and reported as unknown.
var (
	chainTypes = map[string]bool{"user": true, "assistant": true, "system": true, "attachment": true, "progress": true}
	metaTypes  = map[string]bool{
		"summary": true, "file-history-snapshot": true, "queue-operation": true, "custom-title": true,
		"ai-title": true, "last-prompt": true, "content-replacement": true, "worktree-state": true,
		"cost-state": true, "mode": true, "tools-used": true, "tag": true, "agent-name": true,
		"pr-link": true, "atis-latch": true,
	}
)

// parseLine decodes one raw line (without judging it); status says what
// went wrong, if anything.
func parseLine(raw []byte) (*entry, cairn.LineStatus) {
	body := bytes.TrimRight(raw, "\r\n")
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, cairn.LineBlank
	}
	var e entry
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, cairn.LineInvalidJSON
	}
	if !utf8.Valid(body) {
		return &e, cairn.LineInvalidUTF8
	}
	if !chainTypes[e.Type] && !metaTypes[e.Type] && !strings.HasPrefix(e.Type, "api-request") {
		return &e, cairn.LineUnknownType
	}
	return &e, cairn.LineOK
}

func (e *entry) time() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, e.Timestamp)
	return t.UTC()
}

// text returns a message content that is a plain string, and false if the
// content is an array of blocks.
func (m *message) text() (string, bool) {
	if len(m.Content) == 0 || m.Content[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(m.Content, &s) != nil {
		return "", false
	}
	return s, true
}

func (m *message) blocks() []contentBlock {
	if len(m.Content) == 0 || m.Content[0] != '[' {
		return nil
	}
	var bs []contentBlock
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// resultText flattens a tool_result's content, a string or an array of
// text and image blocks, into text.
func resultText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	var parts []contentBlock
	if json.Unmarshal(raw, &parts) != nil {
		return string(raw)
	}
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch p.Type {
		case "text":
			b.WriteString(p.Text)
		default:
			b.WriteString("[" + p.Type + "]")
		}
	}
	return b.String()
}

// resultAgentID returns the subagent id a Task/Agent tool result reports.
func resultAgentID(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '{' {
		return ""
	}
	var r struct {
		AgentID string `json:"agentId"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.AgentID
}
