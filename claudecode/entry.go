package claudecode

import (
	"bytes"
	jsonv1 "encoding/json"
	"iter"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// decodeOptions accept what real transcripts hold: a line is decoded even
// with invalid UTF-8 (replaced) or a repeated key (the last one wins).
var decodeOptions = json.JoinOptions(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))

// unmarshal decodes data into v, returning false if data is not JSON. A
// value of an unexpected type (a future client changing a field) does not
// make the line invalid: the standard decoder fills what it can.
func unmarshal(data []byte, v any) bool {
	if json.Unmarshal(data, v, decodeOptions) == nil {
		return true
	}
	if !jsonv1.Valid(data) {
		return false
	}
	_ = jsonv1.Unmarshal(data, v)
	return true
}

// unmarshalLine is [unmarshal] of a transcript line. The raw JSON values
// of a line longer than wideContent (a message's content above all) are
// slices of line, not copies: a message of a million blocks is not held
// twice while it is read.
func unmarshalLine(line []byte, v any) bool {
	if len(line) <= wideContent {
		return unmarshal(line, v)
	}
	inLine := json.UnmarshalFromFunc(func(dec *jsontext.Decoder, val *jsontext.Value) error {
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		end := int(dec.InputOffset())
		if start := end - len(raw); start >= 0 && end <= len(line) && bytes.Equal(line[start:end], raw) {
			raw = line[start:end:end]
		} else {
			raw = bytes.Clone(raw)
		}
		*val = raw
		return nil
	})
	if json.Unmarshal(line, v, decodeOptions, json.WithUnmarshalers(inLine)) == nil {
		return true
	}
	return unmarshal(line, v)
}

// An entry is the part of a transcript line cairn reads. Everything else in
// the line is kept only in the raw bytes, which is how unknown fields survive.
type entry struct {
	Type              string           `json:"type"`
	Subtype           string           `json:"subtype"`
	UUID              string           `json:"uuid"`
	ParentUUID        *string          `json:"parentUuid"`
	LogicalParentUUID string           `json:"logicalParentUuid"`
	SessionID         string           `json:"sessionId"`
	Timestamp         string           `json:"timestamp"`
	IsSidechain       bool             `json:"isSidechain"`
	IsMeta            bool             `json:"isMeta"`
	IsCompactSummary  bool             `json:"isCompactSummary"`
	AgentID           string           `json:"agentId"`
	Cwd               string           `json:"cwd"`
	Version           string           `json:"version"`
	GitBranch         string           `json:"gitBranch"`
	Message           *message         `json:"message"`
	ToolUseResult     toolUseResult    `json:"toolUseResult"`
	Content           jsontext.Value   `json:"content"`         // system lines
	CompactMetadata   *compactMetadata `json:"compactMetadata"` // compact_boundary lines

	Summary     string `json:"summary"`     // 1.0.x summary lines
	CustomTitle string `json:"customTitle"` // custom-title lines
	AITitle     string `json:"aiTitle"`     // ai-title lines
}

// compactMetadata is what a compact_boundary line says of its compaction.
type compactMetadata struct {
	Trigger   string `json:"trigger"`
	PreTokens int64  `json:"preTokens"`
}

type message struct {
	ID      string         `json:"id"`
	Role    string         `json:"role"`
	Model   string         `json:"model"`
	Content jsontext.Value `json:"content"`
	Usage   *usage         `json:"usage"`
}

type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

type contentBlock struct {
	Type      string         `json:"type"`
	Text      string         `json:"text"`
	Thinking  string         `json:"thinking"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Input     jsontext.Value `json:"input"`
	ToolUseID string         `json:"tool_use_id"`
	Content   jsontext.Value `json:"content"`
	IsError   bool           `json:"is_error"`
	Source    *mediaSource   `json:"source"` // image and document parts
}

// chainType reports whether lines of type t form the conversation's
// parentUuid chain; metaType, whether t is a metadata line known to exist.
// A line of any other type is kept raw and reported as unknown.
func chainType(t string) bool {
	switch t {
	case "user", "assistant", "system", "attachment", "progress":
		return true
	}
	return false
}

func metaType(t string) bool {
	switch t {
	case "summary", "file-history-snapshot", "queue-operation", "custom-title",
		"ai-title", "last-prompt", "content-replacement", "worktree-state",
		"cost-state", "mode", "tools-used", "tag", "agent-name",
		"pr-link", "atis-latch":
		return true
	}
	return false
}

// parseLine decodes one raw line (without judging it); status says what
// went wrong, if anything.
func parseLine(raw []byte) (*entry, cairn.LineStatus) {
	body := bytes.TrimRight(raw, "\r\n")
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, cairn.LineBlank
	}
	var e entry
	if !unmarshalLine(body, &e) {
		return nil, cairn.LineInvalidJSON
	}
	if !utf8.Valid(body) {
		return &e, cairn.LineInvalidUTF8
	}
	if !chainType(e.Type) && !metaType(e.Type) && !strings.HasPrefix(e.Type, "api-request") {
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
	if !unmarshal(m.Content, &s) {
		return "", false
	}
	return s, true
}

// blocks yields a message's content blocks one at a time, so a message
// of a million blocks never holds them all decoded at once.
func (m *message) blocks() iter.Seq2[int, contentBlock] { return elements[contentBlock](m.Content) }

// elements yields the elements of a JSON array decoded one at a time as
// T, which may name only the fields wanted (the others are skipped, not
// copied). An element of an unexpected shape makes the rest be decoded as
// [unmarshal] does.
func elements[T any](raw jsontext.Value) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		if len(raw) == 0 || raw[0] != '[' {
			return
		}
		i := 0
		dec := jsontext.NewDecoder(bytes.NewBuffer(raw), decodeOptions)
		if _, err := dec.ReadToken(); err == nil {
			for ; dec.PeekKind() != ']'; i++ {
				var c T
				if json.UnmarshalDecode(dec, &c, decodeOptions) != nil {
					break
				}
				if !yield(i, c) {
					return
				}
			}
			if dec.PeekKind() == ']' {
				return
			}
		}
		var all []T
		unmarshal(raw, &all)
		for ; i < len(all); i++ {
			if !yield(i, all[i]) {
				return
			}
		}
	}
}

// resultText flattens a tool_result's content, a string or an array of
// text and image blocks, into text.
func resultText(raw jsontext.Value) string {
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		unmarshal(raw, &s)
		return s
	}
	var parts []contentBlock
	if !unmarshal(raw, &parts) {
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
		case "image", "document":
			b.WriteString(mediaName(&p))
		default:
			b.WriteString("[" + p.Type + "]")
		}
	}
	return b.String()
}

// toolUseResult is the part of a line's toolUseResult cairn reads: the
// subagent id a Task/Agent tool result reports. The rest, often a second
// copy of the tool's whole output, is skipped, not copied.
type toolUseResult struct {
	AgentID string
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (r *toolUseResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if name.String() != "agentId" || dec.PeekKind() != '"' {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		v, err := dec.ReadToken()
		if err != nil {
			return err
		}
		r.AgentID = v.String()
	}
	_, err := dec.ReadToken()
	return err
}

// UnmarshalJSON implements json.Unmarshaler for the standard decoder,
// which [unmarshal] falls back to.
func (r *toolUseResult) UnmarshalJSON(data []byte) error {
	var v struct {
		AgentID string `json:"agentId"`
	}
	if len(data) > 0 && data[0] == '{' {
		_ = jsonv1.Unmarshal(data, &v)
	}
	r.AgentID = v.AgentID
	return nil
}
