package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Chat is a running stand-in for the OpenAI Chat Completions API, as an
// OpenAI-compatible provider of opencode calls it: POST /chat/completions
// (under any prefix) answered with SSE chunks, the text as one delta and
// each function call (an [Item] of type "function_call") as one tool call
// with its whole arguments, then a finish_reason and usage; GET …/models
// answered with one model; every POST body is recorded. Turns are picked as
// [Responses] picks them: by the newest user text and the assistant turns
// after it.
type Chat struct {
	*httptest.Server
	Turns []ResponsesTurn

	// Usage, when set, returns the prompt tokens a reply reports for a
	// request of n bytes (default: 100).
	Usage func(n int) int

	mu       sync.Mutex
	requests []Request
}

// NewChat starts a Chat Completions stand-in on loopback; close it with
// Close.
func NewChat(turns ...ResponsesTurn) *Chat {
	s := &Chat{Turns: turns}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetTurns replaces the scripted turns; a test that changes them after
// NewChat, while a client may already be asking, goes through it.
func (s *Chat) SetTurns(turns []ResponsesTurn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Turns = turns
}

// SetUsage replaces Usage as SetTurns replaces the turns.
func (s *Chat) SetUsage(usage func(n int) int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Usage = usage
}

// Requests returns the requests received so far.
func (s *Chat) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// A ChatMessage is one message of a Chat Completions request.
type ChatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	ToolCalls  []ChatToolCall  `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// A ChatToolCall is one tool call of an assistant message.
type ChatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// A ChatRequest is the part of a request body tests read.
type ChatRequest struct {
	Model    string            `json:"model"`
	Messages []ChatMessage     `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
	Stream   bool              `json:"stream"`
}

// Text returns a message's content as text: a string, or its text parts
// joined by newlines.
func (m ChatMessage) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var cs []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &cs)
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// ChatRequests decodes the recorded conversation requests (those with
// messages), in order.
func (s *Chat) ChatRequests() []ChatRequest {
	var out []ChatRequest
	for _, r := range s.Requests() {
		var req ChatRequest
		if json.Unmarshal(r.Body, &req) == nil && len(req.Messages) > 0 {
			out = append(out, req)
		}
	}
	return out
}

func (s *Chat) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeJSON(w, map[string]any{"object": "list", "data": []map[string]string{{"id": "fake-model", "object": "model"}}})
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Body: body})
	turns, usage := s.Turns, s.Usage
	s.mu.Unlock()
	var req ChatRequest
	_ = json.Unmarshal(body, &req)
	items := pickChat(turns, &req)
	prompt := 100
	if usage != nil {
		prompt = usage(len(body))
	}

	id := "chatcmpl-" + randHex(12)
	chunk := func(delta map[string]any, finish any, usage any) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		return c
	}
	var chunks []map[string]any
	var text []string
	var calls []map[string]any
	for _, it := range items {
		switch it.Type {
		case "function_call":
			args, _ := json.Marshal(it.Arguments)
			calls = append(calls, map[string]any{"index": len(calls), "id": "call_" + randHex(8), "type": "function",
				"function": map[string]any{"name": it.Name, "arguments": string(args)}})
		default:
			text = append(text, it.Text)
		}
	}
	chunks = append(chunks, chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil))
	if len(text) > 0 {
		chunks = append(chunks, chunk(map[string]any{"content": strings.Join(text, "\n\n")}, nil, nil))
	}
	for _, c := range calls {
		chunks = append(chunks, chunk(map[string]any{"tool_calls": []map[string]any{c}}, nil, nil))
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	chunks = append(chunks, chunk(map[string]any{}, finish, nil))
	chunks = append(chunks, map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": req.Model,
		"choices": []any{}, "usage": map[string]int{"prompt_tokens": prompt, "completion_tokens": 20, "total_tokens": prompt + 20}})

	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	for _, c := range chunks {
		raw, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", raw)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// pick chooses the reply: the turn matching the newest user text, at the
// step given by the assistant messages after it.
func pickChat(turns []ResponsesTurn, req *ChatRequest) []Item {
	last, after, found := "", 0, false
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			if t := strings.TrimSpace(m.Text()); t != "" {
				last, after, found = t, 0, true
			}
		case "assistant":
			after++
		}
	}
	if found {
		for _, t := range turns {
			if strings.Contains(last, t.Match) {
				if after < len(t.Steps) {
					return append([]Item(nil), t.Steps[after]...)
				}
				break
			}
		}
	}
	return []Item{{Type: "message", Text: DefaultReply}}
}
