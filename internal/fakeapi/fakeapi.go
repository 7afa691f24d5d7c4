// Package fakeapi is a stand-in for the Anthropic Messages API (and, in
// responses.go, for the OpenAI Responses API the Codex CLI calls) on loopback,
// for driving the real Claude Code client offline in tests (modelled on
// shared/tools/fake_anthropic.py). It answers POST /v1/messages, streaming
// (SSE) or not, from a script, answers count_tokens, and records every
// request body so a test can see exactly what the client sent.
package fakeapi

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// A Block is one content block of a scripted reply: text, thinking or
// tool_use.
type Block struct {
	Type      string         `json:"type"`
	Text      string         `json:"text,omitempty"`
	Thinking  string         `json:"thinking,omitempty"`
	Signature string         `json:"signature,omitempty"`
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name,omitempty"`
	Input     map[string]any `json:"input,omitempty"`
}

// A Turn answers requests whose newest user text contains Match: step i is
// the reply after i assistant messages follow that text.
type Turn struct {
	Match string    `json:"match"`
	Steps [][]Block `json:"steps"`
}

// DefaultReply answers a request no turn matches.
const DefaultReply = "FAKE-REPLY"

// A Request is one recorded request.
type Request struct {
	Path string
	Body []byte
}

// Server is a running fake API.
type Server struct {
	*httptest.Server
	Turns []Turn
	// InputTokens, when set, is the input_tokens every reply reports
	// (default 100): a large value makes the client feel its context full.
	InputTokens int

	// Summary, when set, answers the client's compaction requests (/compact
	// and auto-compaction ask for a summary with [CompactMarker] in the
	// newest user message) with this text.
	Summary string

	// Usage, when set, returns the input tokens a reply reports for a
	// request of n bytes (default: 100). Reporting n / [BytesPerToken]
	// makes the client see its context grow, and auto-compact when it
	// fills the window (CLAUDE_CODE_AUTO_COMPACT_WINDOW makes it small).
	Usage func(n int) int

	// Refuse, when set, is asked about every conversation request (one
	// that offers tools) of n bytes; a message it returns is answered as
	// the API's 400 invalid_request_error, such as "prompt is too long:
	// 210000 tokens > 200000 maximum", which makes the client compact.
	Refuse func(n int) string

	mu       sync.Mutex
	requests []Request
	// The turn a long run is in, and how many of its steps were served:
	// after a compaction the request no longer holds the turn's prompt,
	// and the run goes on from where it was.
	active, served int
}

// CompactMarker is in the instruction the client sends when it asks for a
// summary of the conversation (/compact, auto-compaction).
const CompactMarker = "CRITICAL: Respond with TEXT ONLY"

// OldCompactMarker opens the summary instruction of releases before
// [CompactMarker] existed (1.0.x); newer releases' instruction holds it too.
const OldCompactMarker = "Your task is to create a detailed summary of the conversation so far"

// New starts a fake API on loopback; close it with Close.
func New(turns ...Turn) *Server {
	s := &Server{Turns: turns, active: -1}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// A Message is one message of a request.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// A MessagesRequest is the part of a request body tests read.
type MessagesRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Messages []Message         `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
}

// Texts returns a message's text blocks (or its string content).
func (m Message) Texts() []string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []string{s}
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &blocks)
	var out []string
	for _, b := range blocks {
		if b.Type == "text" {
			out = append(out, b.Text)
		}
	}
	return out
}

// IsToolResult reports whether a user message holds tool results.
func (m Message) IsToolResult() bool {
	return m.Role == "user" && strings.Contains(string(m.Content), `"type":"tool_result"`)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, "{}")
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Body: body})
	s.mu.Unlock()
	if strings.Contains(r.URL.Path, "count_tokens") {
		writeJSON(w, map[string]int{"input_tokens": 10})
		return
	}
	var req MessagesRequest
	_ = json.Unmarshal(body, &req)
	s.mu.Lock()
	refuse := s.Refuse
	s.mu.Unlock()
	if refuse != nil && len(req.Tools) > 0 && !s.isCompaction(&req) {
		if msg := refuse(len(body)); msg != "" {
			w.Header().Set("content-type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]string{"type": "invalid_request_error", "message": msg}})
			return
		}
	}
	s.mu.Lock()
	blocks := s.pick(&req)
	s.mu.Unlock()
	stop := "end_turn"
	for i := range blocks {
		switch blocks[i].Type {
		case "tool_use":
			stop = "tool_use"
			if blocks[i].ID == "" {
				blocks[i].ID = "toolu_" + randHex(12)
			}
		case "thinking":
			if blocks[i].Signature == "" {
				blocks[i].Signature = "fake-signature"
			}
		}
	}
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	msg := map[string]any{"id": "msg_" + randHex(12), "type": "message", "role": "assistant", "model": model,
		"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": map[string]int{"input_tokens": s.inputTokens(len(body)), "output_tokens": 20}}
	if !req.Stream {
		writeJSON(w, msg)
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	ev := func(kind string, data any) {
		raw, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", kind, raw)
	}
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	ev("message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range blocks {
		switch b.Type {
		case "text":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]string{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "text_delta", "text": b.Text}})
		case "thinking":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]string{"type": "thinking", "thinking": "", "signature": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "thinking_delta", "thinking": b.Thinking}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "signature_delta", "signature": b.Signature}})
		case "tool_use":
			input, _ := json.Marshal(b.Input)
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "input_json_delta", "partial_json": string(input)}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 20}})
	ev("message_stop", map[string]any{"type": "message_stop"})
	if flusher != nil {
		flusher.Flush()
	}
}

// SetSummary sets the text s answers compaction requests with, under s's
// lock: a test that sets it while s serves does so without a race.
func (s *Server) SetSummary(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Summary = text
}

// isCompaction reports whether req asks for a summary that s answers.
func (s *Server) isCompaction(req *MessagesRequest) bool {
	if s.Summary == "" || len(req.Messages) == 0 {
		return false
	}
	newest := req.Messages[len(req.Messages)-1]
	c := string(newest.Content)
	return newest.Role == "user" && (strings.Contains(c, CompactMarker) || strings.Contains(c, OldCompactMarker))
}

// inputTokens is what a reply to a request of n bytes reports: the
// InputTokens set, else what Usage says, else 100. Called without s.mu.
func (s *Server) inputTokens(n int) int {
	s.mu.Lock()
	fixed, usage := s.InputTokens, s.Usage
	s.mu.Unlock()
	switch {
	case fixed > 0:
		return fixed
	case usage != nil:
		return usage(n)
	}
	return 100
}

// SetUsage sets [Server.Usage] under the server's lock: a test changes it
// while the server answers the real client, whose requests give the test
// no happens-before edge with the handler (the race detector sees both).
func (s *Server) SetUsage(f func(n int) int) {
	s.mu.Lock()
	s.Usage = f
	s.mu.Unlock()
}

// SetRefuse sets [Server.Refuse] under the server's lock, as [Server.SetUsage]
// does; the handler calls it without the lock, so it may call the server.
func (s *Server) SetRefuse(f func(n int) string) {
	s.mu.Lock()
	s.Refuse = f
	s.mu.Unlock()
}

// SetInputTokens sets what replies report from now on.
func (s *Server) SetInputTokens(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.InputTokens = n
}

// pick chooses the reply: [Server.Summary] for a compaction request; else
// the turn matching the newest user text that is not a tool result, at the
// step given by the assistant messages after it; else, when no turn matches
// (after a compaction the prompt is gone), the next step of the turn last
// served, while it has steps left. Called with s.mu held.
func (s *Server) pick(req *MessagesRequest) []Block {
	last, after := "", 0
	found := false
	for _, m := range req.Messages {
		switch {
		case m.Role == "user" && !m.IsToolResult():
			if t := strings.TrimSpace(strings.Join(m.Texts(), " ")); t != "" {
				last, after, found = t, 0, true
			}
		case m.Role == "assistant":
			after++
		}
	}
	if s.isCompaction(req) {
		return []Block{{Type: "text", Text: s.Summary}}
	}
	if len(req.Tools) == 0 {
		return []Block{{Type: "text", Text: DefaultReply}}
	}
	if found {
		for i, t := range s.Turns {
			if strings.Contains(last, t.Match) {
				if i == s.active && s.served > after {
					// A compaction kept the prompt but fewer of the turn's
					// replies: the run goes on, it does not start over.
					after = s.served
				}
				if after < len(t.Steps) {
					s.active, s.served = i, after+1
					return append([]Block(nil), t.Steps[after]...)
				}
				s.active = -1
				return []Block{{Type: "text", Text: DefaultReply}}
			}
		}
	}
	if s.active >= 0 && s.served < len(s.Turns[s.active].Steps) {
		s.served++
		return append([]Block(nil), s.Turns[s.active].Steps[s.served-1]...)
	}
	return []Block{{Type: "text", Text: DefaultReply}}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("content-type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
