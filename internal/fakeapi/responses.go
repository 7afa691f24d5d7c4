package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
)

// An Item is one output item of a scripted Responses API reply: a
// "message" (Text), a "function_call" (Name, Arguments, and Namespace for
// a tool of a namespace, as Codex's multi_agent_v1 spawn_agent; the call id
// is made up) or a "reasoning" (Text as its summary).
type Item struct {
	Type      string         `json:"type"`
	Text      string         `json:"text,omitempty"`
	Name      string         `json:"name,omitempty"`
	Namespace string         `json:"namespace,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// A ResponsesTurn answers requests whose newest user text contains Match:
// step i is the reply after i model turns follow that text.
type ResponsesTurn struct {
	Match string   `json:"match"`
	Steps [][]Item `json:"steps"`
}

// Responses is a running stand-in for the OpenAI Responses API, as the
// Codex CLI calls it (modelled on shared/tools/fake_responses.py): POST
// /v1/responses answered with SSE (response.created, one
// response.output_item.done per item, response.completed with usage), GET
// /v1/models answered with one model; every POST body is recorded.
type Responses struct {
	*httptest.Server
	Turns []ResponsesTurn

	mu       sync.Mutex
	requests []Request
}

// NewResponses starts a Responses API stand-in on loopback; close it with
// Close.
func NewResponses(turns ...ResponsesTurn) *Responses {
	s := &Responses{Turns: turns}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests returns the requests received so far.
func (s *Responses) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// An InputItem is one item of a request's input, as tests read it.
type InputItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments string          `json:"arguments,omitempty"`
	Input     string          `json:"input,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
}

// A ResponsesRequest is the part of a request body tests read.
type ResponsesRequest struct {
	Model        string            `json:"model"`
	Instructions string            `json:"instructions"`
	Input        []InputItem       `json:"input"`
	Tools        []json.RawMessage `json:"tools"`
	Stream       bool              `json:"stream"`
}

// Text returns a message item's text parts joined by newlines.
func (it InputItem) Text() string {
	var cs []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(it.Content, &cs)
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// OutputText returns a function_call_output's output as text.
func (it InputItem) OutputText() string {
	var s string
	if json.Unmarshal(it.Output, &s) == nil {
		return s
	}
	return string(it.Output)
}

// Injected reports whether a user message item is context Codex wrote (a
// whole text wrapped in one tag, such as <environment_context>, or the
// AGENTS.md preamble), not the user's words.
func (it InputItem) Injected() bool {
	t := strings.TrimSpace(it.Text())
	if strings.HasPrefix(t, "# AGENTS.md instructions") {
		return true
	}
	m := tagRE.FindStringSubmatch(t)
	return m != nil && strings.HasSuffix(t, "</"+m[1]+">")
}

var tagRE = regexp.MustCompile(`^<([a-zA-Z_][a-zA-Z0-9_ -]*)>`)

func (s *Responses) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeJSON(w, map[string]any{"object": "list", "data": []map[string]string{{"id": "fake-model", "object": "model"}}, "models": []any{}})
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Body: body})
	s.mu.Unlock()
	var req ResponsesRequest
	_ = json.Unmarshal(body, &req)
	items := s.pick(&req)

	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	flusher, _ := w.(http.Flusher)
	ev := func(kind string, data map[string]any) {
		data["type"] = kind
		raw, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", kind, raw)
	}
	id := "resp_" + randHex(12)
	ev("response.created", map[string]any{"response": map[string]any{"id": id}})
	for i, it := range items {
		var out map[string]any
		switch it.Type {
		case "function_call":
			args, _ := json.Marshal(it.Arguments)
			out = map[string]any{"type": "function_call", "id": "fc_" + randHex(12), "call_id": "call_" + randHex(8),
				"name": it.Name, "arguments": string(args)}
			if it.Namespace != "" {
				out["namespace"] = it.Namespace
			}
		case "reasoning":
			out = map[string]any{"type": "reasoning", "id": "rs_" + randHex(12),
				"summary": []map[string]string{{"type": "summary_text", "text": it.Text}}}
		default:
			out = map[string]any{"type": "message", "id": "msg_" + randHex(12), "role": "assistant", "status": "completed",
				"content": []map[string]any{{"type": "output_text", "text": it.Text, "annotations": []any{}}}}
		}
		ev("response.output_item.done", map[string]any{"output_index": i, "item": out})
	}
	ev("response.completed", map[string]any{"response": map[string]any{"id": id, "usage": map[string]any{
		"input_tokens": 100, "input_tokens_details": map[string]int{"cached_tokens": 0},
		"output_tokens": 20, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 120}}})
	if flusher != nil {
		flusher.Flush()
	}
}

// pick chooses the reply: the turn matching the newest user text Codex did
// not inject, at the step given by the model turns after it (a run of
// reasoning, assistant messages and function calls is one turn).
func (s *Responses) pick(req *ResponsesRequest) []Item {
	last, after, inTurn := "", 0, false
	found := false
	for _, it := range req.Input {
		switch {
		case it.Type == "message" && it.Role == "user":
			if t := strings.TrimSpace(it.Text()); t != "" && !it.Injected() {
				last, after, found = t, 0, true
			}
			inTurn = false
		case it.Type == "message" && it.Role == "assistant", it.Type == "function_call", it.Type == "reasoning", it.Type == "custom_tool_call":
			if !inTurn {
				after++
			}
			inTurn = true
		default:
			inTurn = false
		}
	}
	if found {
		for _, t := range s.Turns {
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
