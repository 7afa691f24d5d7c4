package fakeapi

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Limits the real Messages API holds a request to.
const (
	MaxRequestBytes = 32 << 20 // the API's request-size limit
	MaxCacheControl = 4        // cache breakpoints the API accepts
	// BytesPerToken estimates tokens from a request's size: bytes / 3
	// matched the usage fields of long real sessions within about 10 %.
	BytesPerToken = 3
	// DefaultWindow is the context window a request is held to when the
	// caller names none.
	DefaultWindow = 200_000
)

// EstimateTokens is the token estimate of a request body of n bytes.
func EstimateTokens(n int) int { return n / BytesPerToken }

// A CheckBlock is one content block of a checked message.
type CheckBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	Cache     json.RawMessage `json:"cache_control"`
}

// Blocks returns a message's content blocks; a string content is one text
// block.
func (m Message) Blocks() []CheckBlock {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []CheckBlock{{Type: "text", Text: s}}
	}
	var bs []CheckBlock
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// CheckRequest returns what the real API (or a sane resume) would object
// to in a Messages API request body, one problem a string, in the words of
// shared/tools/check_request.py whose rules it ports:
//
//   - roles are user or assistant and alternate, starting and ending on
//     user (messages of role "system", which clients 2.1.19x and later
//     append themselves, are checked for content only);
//   - no empty message, no empty or whitespace-only text block;
//   - thinking only from the assistant, with its signature
//     (redacted_thinking with its data);
//   - every tool_use (assistant only, with a unique id) is answered by a
//     tool_result of the next user message, and every tool_result (user
//     only, before any other block) answers a tool_use of the message just
//     before, once;
//   - no empty system block, no duplicate tool names, at most four cache
//     breakpoints, at most 32 MB, and at most window tokens estimated as
//     bytes / 3 (window 0: [DefaultWindow]).
//
// An unreadable body is one problem.
func CheckRequest(body []byte, window int) []string {
	if window <= 0 {
		window = DefaultWindow
	}
	var req struct {
		Messages []Message        `json:"messages"`
		System   json.RawMessage  `json:"system"`
		Tools    []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return []string{"body: " + err.Error()}
	}
	if len(req.Messages) == 0 {
		return []string{"messages: missing or empty"}
	}
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }

	type conv struct {
		i      int
		role   string
		blocks []CheckBlock
	}
	var cs []conv
	for i, m := range req.Messages {
		if m.Role != "system" {
			cs = append(cs, conv{i, m.Role, m.Blocks()})
		}
	}
	seen := map[string]int{}
	marks := 0
	for k, c := range cs {
		var prev, next *conv
		if k > 0 {
			prev = &cs[k-1]
		}
		if k+1 < len(cs) {
			next = &cs[k+1]
		}
		if c.role != "user" && c.role != "assistant" {
			add("messages.%d: role %q", c.i, c.role)
		}
		if prev != nil && prev.role == c.role {
			add("messages.%d: two %s messages in a row", c.i, c.role)
		}
		if len(c.blocks) == 0 {
			add("messages.%d: empty content", c.i)
		}
		for j, b := range c.blocks {
			where := fmt.Sprintf("messages.%d.content.%d", c.i, j)
			if len(b.Cache) > 0 && string(b.Cache) != "null" {
				marks++
			}
			switch b.Type {
			case "text":
				if strings.TrimSpace(b.Text) == "" {
					add("%s: empty or whitespace-only text block", where)
				}
			case "thinking", "redacted_thinking":
				if c.role != "assistant" {
					add("%s: %s in a %s message", where, b.Type, c.role)
				}
				if b.Type == "thinking" && b.Signature == "" {
					add("%s: thinking block without signature", where)
				}
				if b.Type == "redacted_thinking" && b.Data == "" {
					add("%s: redacted_thinking without data", where)
				}
			case "tool_use":
				if c.role != "assistant" {
					add("%s: tool_use in a %s message", where, c.role)
				}
				switch first, dup := seen[b.ID]; {
				case b.ID == "":
					add("%s: tool_use without id", where)
				case dup:
					add("%s: duplicate tool_use id %s (first at messages.%d)", where, b.ID, first)
				default:
					seen[b.ID] = c.i
				}
			case "tool_result":
				if c.role != "user" {
					add("%s: tool_result in a %s message", where, c.role)
				}
				for _, x := range c.blocks[:j] {
					if x.Type != "tool_result" {
						add("%s: tool_result after a non-tool_result block", where)
						break
					}
				}
			}
		}
		switch c.role {
		case "assistant":
			answered := map[string]bool{}
			if next != nil && next.role == "user" {
				for _, b := range next.blocks {
					if b.Type == "tool_result" {
						answered[b.ToolUseID] = true
					}
				}
			}
			done := map[string]bool{}
			for _, b := range c.blocks {
				if b.Type == "tool_use" && !done[b.ID] {
					done[b.ID] = true
					if !answered[b.ID] {
						add("messages.%d: tool_use %s has no tool_result in the next user message", c.i, b.ID)
					}
				}
			}
		case "user":
			uses := map[string]bool{}
			prevAt := -1
			if prev != nil {
				prevAt = prev.i
				if prev.role == "assistant" {
					for _, b := range prev.blocks {
						if b.Type == "tool_use" {
							uses[b.ID] = true
						}
					}
				}
			}
			answered := map[string]bool{}
			twice := false
			for _, b := range c.blocks {
				if b.Type != "tool_result" {
					continue
				}
				if !uses[b.ToolUseID] {
					add("messages.%d: tool_result for %s matches no tool_use in messages.%d", c.i, b.ToolUseID, prevAt)
				}
				twice = twice || answered[b.ToolUseID]
				answered[b.ToolUseID] = true
			}
			if twice {
				add("messages.%d: a tool_use answered twice", c.i)
			}
		}
	}
	if len(cs) > 0 && cs[0].role != "user" {
		add("messages.%d: first conversation role is %q", cs[0].i, cs[0].role)
	}
	if len(cs) > 0 && cs[len(cs)-1].role != "user" {
		add("messages: last message is not from the user (a prefill; suspicious on resume)")
	}
	var system []CheckBlock
	var s string
	if json.Unmarshal(req.System, &s) == nil {
		system = []CheckBlock{{Type: "text", Text: s}}
	} else {
		_ = json.Unmarshal(req.System, &system)
	}
	for k, b := range system {
		if len(b.Cache) > 0 && string(b.Cache) != "null" {
			marks++
		}
		if strings.TrimSpace(b.Text) == "" {
			add("system.%d: empty text", k)
		}
	}
	names := map[string]bool{}
	for _, t := range req.Tools {
		name, _ := t["name"].(string)
		if names[name] {
			add("tools: duplicate tool names")
			break
		}
		names[name] = true
	}
	if marks > MaxCacheControl {
		add("%d cache_control breakpoints (max %d)", marks, MaxCacheControl)
	}
	if len(body) > MaxRequestBytes {
		add("request is %d bytes (> %d)", len(body), MaxRequestBytes)
	}
	if t := EstimateTokens(len(body)); t > window {
		add("~%d tokens estimated (> %d window: 'prompt is too long')", t, window)
	}
	return p
}

// Conversation returns the last request of the client's agent loop: the
// last POST to /v1/messages (not count_tokens) that offers tools, as
// check_request.py picks it; nil if none. The client's side calls (titles,
// quota probes) offer no tools.
func (s *Server) Conversation() *Request {
	reqs := s.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		r := reqs[i]
		if !strings.Contains(r.Path, "/v1/messages") || strings.Contains(r.Path, "count_tokens") {
			continue
		}
		var req MessagesRequest
		if json.Unmarshal(r.Body, &req) == nil && len(req.Tools) > 0 {
			return &r
		}
	}
	return nil
}
