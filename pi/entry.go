package pi

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// Entry types of a session file (docs/session-format.md). The header is
// "session"; every other entry has an id and a parentId (from format 2;
// format 1 lists them in order without ids).
const (
	typeSession       = "session"
	typeMessage       = "message"
	typeModelChange   = "model_change"
	typeThinking      = "thinking_level_change"
	typeCompaction    = "compaction"
	typeBranchSummary = "branch_summary"
	typeCustom        = "custom"
	typeCustomMessage = "custom_message"
	typeLabel         = "label"
	typeSessionInfo   = "session_info"
)

// knownTypes are the entry types read; a line of another type is kept raw
// (its id still extends the tree) and indexes nothing.
var knownTypes = map[string]bool{
	typeSession: true, typeMessage: true, typeModelChange: true, typeThinking: true, typeCompaction: true,
	typeBranchSummary: true, typeCustom: true, typeCustomMessage: true, typeLabel: true, typeSessionInfo: true,
}

// An entry is one line of a session file: the fields of every entry type
// that cairn reads. Fields it does not name stay in the line's raw bytes.
type entry struct {
	Type          string  `json:"type"`
	Version       int     `json:"version"`
	ID            string  `json:"id"`
	ParentID      *string `json:"parentId"`
	Timestamp     string  `json:"timestamp"`
	Cwd           string  `json:"cwd"`
	ParentSession string  `json:"parentSession"`

	Message *message `json:"message"`

	Summary          string          `json:"summary"`
	FirstKeptEntryID string          `json:"firstKeptEntryId"`
	TokensBefore     int64           `json:"tokensBefore"`
	FromID           string          `json:"fromId"`
	CustomType       string          `json:"customType"`
	Content          json.RawMessage `json:"content"`
	Provider         string          `json:"provider"`
	ModelID          string          `json:"modelId"`
	ThinkingLevel    string          `json:"thinkingLevel"`
	TargetID         string          `json:"targetId"`
	Label            *string         `json:"label"`
	Name             string          `json:"name"`
}

// A message is an AgentMessage: user, assistant, toolResult, bashExecution,
// custom (hookMessage before format 3), branchSummary, compactionSummary.
type message struct {
	Role         string          `json:"role"`
	Content      json.RawMessage `json:"content"`
	Model        string          `json:"model"`
	Usage        *usage          `json:"usage"`
	StopReason   string          `json:"stopReason"`
	ErrorMessage string          `json:"errorMessage"`
	ResponseID   string          `json:"responseId"`

	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	IsError    bool   `json:"isError"`

	Command  string `json:"command"`
	Output   string `json:"output"`
	ExitCode *int   `json:"exitCode"`

	CustomType   string `json:"customType"`
	Summary      string `json:"summary"`
	TokensBefore int64  `json:"tokensBefore"`
}

type usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
}

func (u *usage) usage() cairn.Usage {
	return cairn.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheCreation: u.CacheWrite}
}

// A part is one content block: text, image, thinking or toolCall.
type part struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	MimeType  string          `json:"mimeType"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// parts reads content that is a string or a list of blocks.
func parts(raw json.RawMessage) []part {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []part{{Type: "text", Text: s}}
	}
	var ps []part
	_ = json.Unmarshal(raw, &ps)
	return ps
}

// text joins the text blocks of content, an image named in its place.
func text(ps []part) string {
	var b strings.Builder
	for _, p := range ps {
		var t string
		switch p.Type {
		case "text":
			t = p.Text
		case "image":
			t = "[image " + p.MimeType + "]"
		default:
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t)
	}
	return b.String()
}

// parseLine reads one line: the entry, its type, and its status.
func parseLine(raw []byte) (*entry, string, cairn.LineStatus) {
	t, status := cairn.LineText(raw)
	if status == cairn.LineBlank {
		return nil, "", status
	}
	var e entry
	if t[0] != '{' || json.Unmarshal(t, &e) != nil {
		return nil, "", cairn.LineInvalidJSON
	}
	if !knownTypes[e.Type] {
		return &e, e.Type, cairn.LineUnknownType
	}
	return &e, e.Type, status
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
