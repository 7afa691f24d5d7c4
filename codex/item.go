package codex

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// A rolloutLine is one line of a rollout: {timestamp, type, payload}, with
// ordinal from 2026 builds. Files of the first era (spring 2025) hold the
// items themselves, one a line, after a first line {id, timestamp,
// instructions}; such a line is read into payload as it is.
type rolloutLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`

	// First-era session header.
	ID string `json:"id"`
	// First-era state line: {"record_type":"state"}.
	RecordType string `json:"record_type"`
}

// An item is a payload: a response item (message, function_call, …), an
// event, the session's meta or a compaction. Only the fields cairn reads.
type item struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	ID        string          `json:"id"`
	Content   json.RawMessage `json:"content"`
	Summary   []contentItem   `json:"summary"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
	Status    string          `json:"status"`

	// compacted, and event_msg user_message / agent_message.
	Message string `json:"message"`

	// session_meta.
	SessionID string          `json:"session_id"`
	Cwd       string          `json:"cwd"`
	Version   string          `json:"cli_version"`
	Source    json.RawMessage `json:"source"`
	Git       *struct {
		Branch string `json:"branch"`
	} `json:"git"`
	Timestamp string `json:"timestamp"`

	// token_usage_record and event_msg token_count.
	ResponseID string      `json:"response_id"`
	Usage      *tokenUsage `json:"usage"`
	Info       *struct {
		Last *tokenUsage `json:"last_token_usage"`
	} `json:"info"`
	Model string `json:"model"`
}

type contentItem struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

type tokenUsage struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_output_tokens"`
}

// usage converts OpenAI's usage, where input counts cached tokens too.
func (u *tokenUsage) usage() cairn.Usage {
	return cairn.Usage{Input: max(u.Input-u.Cached, 0), Output: u.Output, CacheRead: u.Cached}
}

// lineType reports whether t is a rollout line type cairn knows; a line of
// another type is kept raw and reported.
func lineType(t string) bool {
	switch t {
	case "session_meta", "response_item", "event_msg", "turn_context",
		"world_state", "token_usage_record", "compacted":
		return true
	}
	return false
}

// itemType reports whether t is a response item a first-era file holds at
// top level.
func itemType(t string) bool {
	switch t {
	case "message", "reasoning", "function_call", "function_call_output",
		"custom_tool_call", "custom_tool_call_output", "local_shell_call",
		"web_search_call", "tool_search_call", "tool_search_output",
		"image_generation_call", "ghost_snapshot", "compaction", "other":
		return true
	}
	return false
}

// A parsed line: its kind and payload. kind is the rollout type
// ("response_item", "session_meta", …); a first-era line gets the kind it
// would have today.
type parsed struct {
	kind string
	ts   time.Time
	item *item
}

// parseLine reads one raw line. The item is nil for a line that is not
// JSON.
func parseLine(raw []byte) (*parsed, cairn.LineStatus) {
	body := bytes.TrimRight(raw, "\r\n")
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, cairn.LineBlank
	}
	status := cairn.LineOK
	if !utf8.Valid(body) {
		status = cairn.LineInvalidUTF8
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	// Lines that hold no block and no usage (progress events, world state)
	// are only validated: decoding them costs a third of an import.
	if m := skippable().FindSubmatch(body); m != nil && (string(m[2]) != "event_msg" || string(m[3]) != "token_count") {
		if !json.Valid(body) {
			return nil, cairn.LineInvalidJSON
		}
		p := &parsed{kind: string(m[2]), item: &item{Type: string(m[3])}}
		p.ts, _ = time.Parse(time.RFC3339Nano, string(m[1]))
		p.ts = p.ts.UTC()
		return p, status
	}
	// One pass decodes the line and its payload; a payload of an
	// unexpected shape is read again alone, for what can be read of it.
	var one struct {
		rolloutLine
		Item *item `json:"payload"`
	}
	one.Item = &item{}
	var rl rolloutLine
	if err := json.Unmarshal(body, &one); err == nil {
		rl = one.rolloutLine
		rl.Payload = nil
	} else if err := json.Unmarshal(body, &rl); err != nil {
		return nil, cairn.LineInvalidJSON
	} else {
		one.Item = &item{}
		if len(rl.Payload) > 0 && json.Unmarshal(rl.Payload, one.Item) != nil {
			*one.Item = item{}
		}
	}
	p := &parsed{kind: rl.Type, item: one.Item}
	p.ts, _ = time.Parse(time.RFC3339Nano, rl.Timestamp)
	p.ts = p.ts.UTC()
	switch {
	case rl.Type != "" && !itemType(rl.Type):
		// {timestamp, type, payload}: decoded above.
	case rl.Type == "" && rl.RecordType != "":
		p.kind = "state"
	case rl.Type == "" && rl.ID != "":
		p.kind = "session_meta"
		p.item.ID, p.item.Timestamp = rl.ID, rl.Timestamp
	case itemType(rl.Type):
		// A first-era item: the line is the item.
		p.kind = "response_item"
		*p.item = item{}
		_ = json.Unmarshal(body, p.item)
	}
	if !lineType(p.kind) && p.kind != "state" && status == cairn.LineOK {
		status = cairn.LineUnknownType
	}
	return p, status
}

// skippable matches the start of a line Codex wrote whose payload cairn
// does not read: an event (its type captured) or a world_state.
var skippable = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\{"timestamp":"([^"]*)",(?:"ordinal":\d+,)?"type":"(event_msg|world_state)","payload":\{(?:"type":"([a-z_]+)")?`)
})

// texts returns a message's text items joined, and whether it carries an
// image.
func (it *item) texts() (texts []string, image bool) {
	if c := bytes.TrimSpace(it.Content); len(c) > 0 && c[0] == '"' {
		var s string
		if json.Unmarshal(c, &s) == nil {
			return []string{s}, false
		}
	}
	var cs []contentItem
	_ = json.Unmarshal(it.Content, &cs)
	for _, c := range cs {
		switch c.Type {
		case "input_text", "output_text", "text", "reasoning_text", "summary_text":
			texts = append(texts, c.Text)
		case "input_image", "image":
			image = true
		}
	}
	return texts, image
}

// reasoning returns a reasoning item's readable text: its summary, else its
// content. Encrypted content is not readable and is not indexed.
func (it *item) reasoning() string {
	var parts []string
	for _, s := range it.Summary {
		parts = append(parts, s.Text)
	}
	if len(parts) == 0 {
		parts, _ = it.texts()
	}
	return strings.Join(parts, "\n\n")
}

// outputText returns a tool output as text: a string, {content, success} of
// older builds, or a list of content items.
func outputText(raw json.RawMessage) (text string, failed bool) {
	if len(raw) == 0 {
		return "", false
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		// Builds of 2025 wrapped a shell's output in JSON:
		// {"output": "...", "metadata": {"exit_code": 1, ...}}.
		var wrapped struct {
			Output   *string `json:"output"`
			Metadata struct {
				ExitCode int `json:"exit_code"`
			} `json:"metadata"`
		}
		if strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &wrapped) == nil && wrapped.Output != nil {
			return *wrapped.Output, wrapped.Metadata.ExitCode != 0
		}
		m := exitCode().FindStringSubmatch(s)
		return s, m != nil && m[1] != "0"
	}
	var o struct {
		Content json.RawMessage `json:"content"`
		Success *bool           `json:"success"`
	}
	if json.Unmarshal(raw, &o) == nil && len(o.Content) > 0 {
		t, _ := outputText(o.Content)
		return t, o.Success != nil && !*o.Success
	}
	var cs []contentItem
	if json.Unmarshal(raw, &cs) == nil {
		var parts []string
		for _, c := range cs {
			if c.Text != "" {
				parts = append(parts, c.Text)
			}
		}
		return strings.Join(parts, "\n"), false
	}
	return string(raw), false
}

// exitCode finds the status exec_command reports in its output's header.
var exitCode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Process exited with code (-?\d+)$`) })

// arguments returns a call's arguments as a JSON text: function_call
// arguments are a JSON string holding JSON.
func (it *item) arguments() string {
	var s string
	if json.Unmarshal(it.Arguments, &s) == nil {
		return s
	}
	return string(it.Arguments)
}
