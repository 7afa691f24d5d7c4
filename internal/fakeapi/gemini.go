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

// A GeminiPart is one part of a scripted Gemini reply: text (Thought marks
// a thought summary) or a function call (Name, Args).
type GeminiPart struct {
	Text    string         `json:"text,omitempty"`
	Thought bool           `json:"thought,omitempty"`
	Name    string         `json:"name,omitempty"`
	Args    map[string]any `json:"args,omitempty"`
}

// A GeminiTurn answers conversation requests whose newest user text
// contains Match: step i is the reply after i model turns follow that text.
type GeminiTurn struct {
	Match string         `json:"match"`
	Steps [][]GeminiPart `json:"steps"`
}

// Gemini is a running stand-in for the Gemini API as the Gemini CLI calls
// it with GOOGLE_GEMINI_BASE_URL: POST
// /v1beta/models/{model}:streamGenerateContent?alt=sse answered with one
// SSE event holding the whole reply, :generateContent with the same reply
// as JSON, :countTokens with a count of the body's bytes. Conversation
// requests (those that declare tools) are answered from the script; the
// client's side requests (a session's summary, routing, next speaker)
// get [DefaultReply], or, when they ask for JSON, an empty object. Every
// POST body is recorded.
type Gemini struct {
	*httptest.Server
	Turns []GeminiTurn

	mu       sync.Mutex
	requests []Request
}

// NewGemini starts a Gemini API stand-in on loopback; close it with Close.
func NewGemini(turns ...GeminiTurn) *Gemini {
	s := &Gemini{Turns: turns}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests returns the requests received so far.
func (s *Gemini) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// A GeminiContent is one content of a request, as tests read it.
type GeminiContent struct {
	Role  string            `json:"role"`
	Parts []GeminiInputPart `json:"parts"`
}

// A GeminiInputPart is one part of a request's content.
type GeminiInputPart struct {
	Text             string          `json:"text,omitempty"`
	Thought          bool            `json:"thought,omitempty"`
	FunctionCall     *GeminiCall     `json:"functionCall,omitempty"`
	FunctionResponse *GeminiResponse `json:"functionResponse,omitempty"`
}

// A GeminiCall is a functionCall part.
type GeminiCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// A GeminiResponse is a functionResponse part.
type GeminiResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response,omitempty"`
}

// A GeminiRequest is the part of a generateContent body tests read.
type GeminiRequest struct {
	Contents          []GeminiContent `json:"contents"`
	SystemInstruction *GeminiContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

// Conversation reports whether the request is a turn of the conversation:
// it declares tools.
func (r *GeminiRequest) Conversation() bool {
	for _, t := range r.Tools {
		if len(t.FunctionDeclarations) > 0 {
			return true
		}
	}
	return false
}

// Text returns a content's text parts joined by newlines.
func (c GeminiContent) Text() string {
	var parts []string
	for _, p := range c.Parts {
		if p.FunctionCall == nil && p.FunctionResponse == nil && !p.Thought {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// IsResponse reports whether a user content carries function responses.
func (c GeminiContent) IsResponse() bool {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// ConversationRequests returns the recorded conversation requests, decoded.
func (s *Gemini) ConversationRequests() []*GeminiRequest {
	var out []*GeminiRequest
	for _, r := range s.Requests() {
		var req GeminiRequest
		if json.Unmarshal(r.Body, &req) == nil && req.Conversation() {
			out = append(out, &req)
		}
	}
	return out
}

func (s *Gemini) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeJSON(w, map[string]any{"models": []map[string]string{{"name": "models/gemini-2.5-pro"}}})
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Body: body})
	s.mu.Unlock()
	if strings.HasSuffix(r.URL.Path, ":countTokens") {
		writeJSON(w, map[string]int{"totalTokens": EstimateTokens(len(body))})
		return
	}
	var req GeminiRequest
	_ = json.Unmarshal(body, &req)
	var parts []map[string]any
	switch {
	case req.Conversation():
		for i, p := range s.pick(&req) {
			switch {
			case p.Name != "":
				args := p.Args
				if args == nil {
					args = map[string]any{}
				}
				parts = append(parts, map[string]any{"functionCall": map[string]any{
					"id": fmt.Sprintf("call_%s_%d", randHex(6), i), "name": p.Name, "args": args}})
			case p.Thought:
				parts = append(parts, map[string]any{"text": p.Text, "thought": true})
			default:
				parts = append(parts, map[string]any{"text": p.Text})
			}
		}
	case req.GenerationConfig.ResponseMimeType == "application/json":
		parts = []map[string]any{{"text": `{"reasoning":"stand-in","complexity_score":10,"model_choice":"flash"}`}}
	default:
		parts = []map[string]any{{"text": DefaultReply}}
	}
	reply := map[string]any{
		"candidates": []map[string]any{{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": EstimateTokens(len(body)), "candidatesTokenCount": 20,
			"totalTokenCount": EstimateTokens(len(body)) + 20},
		"modelVersion": "gemini-2.5-pro",
	}
	if !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		writeJSON(w, reply)
		return
	}
	raw, _ := json.Marshal(reply)
	w.Header().Set("content-type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", raw)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// pick chooses the reply: the turn matching the newest user text (not a
// function response), at the step given by the model contents after it.
func (s *Gemini) pick(req *GeminiRequest) []GeminiPart {
	last, after, found := "", 0, false
	for _, c := range req.Contents {
		switch {
		case c.Role == "user" && !c.IsResponse():
			if t := strings.TrimSpace(c.Text()); t != "" {
				last, after, found = t, 0, true
			}
		case c.Role == "model":
			after++
		}
	}
	if found {
		for _, t := range s.Turns {
			if strings.Contains(last, t.Match) {
				if after < len(t.Steps) {
					return append([]GeminiPart(nil), t.Steps[after]...)
				}
				break
			}
		}
	}
	return []GeminiPart{{Text: DefaultReply}}
}
