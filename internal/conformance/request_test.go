package conformance_test

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A turn is one message of a request, read alike from every API: who sent
// it and its items in order.
type turn struct {
	role  string // user, assistant, tool (results), system
	items []item
}

// An item is a text, a tool call or a tool result.
type item struct {
	kind string // text | call | result
	id   string // a call's id, or the call a result answers
	name string // a call's tool
	text string // a text's, a call's arguments, a result's output
}

// text is every text, argument and output of the turn, one a line.
func (t turn) text() string {
	var b strings.Builder
	for _, it := range t.items {
		b.WriteString(it.text)
		b.WriteString("\n")
	}
	return b.String()
}

// turns reads a request body of api into its conversation.
func turns(api string, body []byte) ([]turn, error) {
	switch api {
	case "messages":
		return messagesTurns(body)
	case "responses":
		return responsesTurns(body)
	case "gemini":
		return geminiTurns(body)
	case "chat":
		return chatTurns(body)
	}
	return nil, fmt.Errorf("no API %q", api)
}

// flat is v's strings, a JSON object's in a string read too, one a line:
// the text of an output however the API wraps it.
func flat(v any) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			b.WriteString("\n")
			if s := strings.TrimSpace(v); strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") {
				var inner any
				if json.Unmarshal([]byte(s), &inner) == nil {
					walk(inner)
				}
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

func messagesTurns(body []byte) ([]turn, error) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []turn
	for _, m := range req.Messages {
		t := turn{role: m.Role}
		switch c := m.Content.(type) {
		case string:
			t.items = append(t.items, item{kind: "text", text: c})
		case []any:
			for _, e := range c {
				b, _ := e.(map[string]any)
				typ, _ := b["type"].(string)
				switch typ {
				case "text":
					s, _ := b["text"].(string)
					t.items = append(t.items, item{kind: "text", text: s})
				case "tool_use":
					id, _ := b["id"].(string)
					name, _ := b["name"].(string)
					t.items = append(t.items, item{kind: "call", id: id, name: name, text: flat(b["input"])})
				case "tool_result":
					id, _ := b["tool_use_id"].(string)
					t.items = append(t.items, item{kind: "result", id: id, text: flat(b["content"])})
				}
			}
		}
		out = append(out, t)
	}
	return out, nil
}

func responsesTurns(body []byte) ([]turn, error) {
	var req struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []turn
	for _, it := range req.Input {
		typ, _ := it["type"].(string)
		id, _ := it["call_id"].(string)
		name, _ := it["name"].(string)
		switch typ {
		case "message":
			role, _ := it["role"].(string)
			t := turn{role: role}
			if role == "developer" {
				t.role = "system"
			}
			switch c := it["content"].(type) {
			case string:
				t.items = append(t.items, item{kind: "text", text: c})
			case []any:
				for _, e := range c {
					b, _ := e.(map[string]any)
					if s, ok := b["text"].(string); ok {
						t.items = append(t.items, item{kind: "text", text: s})
					}
				}
			}
			out = append(out, t)
		case "function_call", "custom_tool_call", "local_shell_call":
			args := flat(it["arguments"]) + flat(it["input"]) + flat(it["action"])
			out = append(out, turn{role: "assistant", items: []item{{kind: "call", id: id, name: name, text: args}}})
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			out = append(out, turn{role: "tool", items: []item{{kind: "result", id: id, text: flat(it["output"])}}})
		}
	}
	return out, nil
}

func geminiTurns(body []byte) ([]turn, error) {
	var req struct {
		Contents []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []turn
	for _, c := range req.Contents {
		t := turn{role: c.Role}
		if c.Role == "model" {
			t.role = "assistant"
		}
		results := 0
		for _, p := range c.Parts {
			if th, _ := p["thought"].(bool); th {
				continue
			}
			switch {
			case p["functionCall"] != nil:
				fc, _ := p["functionCall"].(map[string]any)
				id, _ := fc["id"].(string)
				name, _ := fc["name"].(string)
				t.items = append(t.items, item{kind: "call", id: id, name: name, text: flat(fc["args"])})
			case p["functionResponse"] != nil:
				fr, _ := p["functionResponse"].(map[string]any)
				id, _ := fr["id"].(string)
				name, _ := fr["name"].(string)
				t.items = append(t.items, item{kind: "result", id: id, name: name, text: flat(fr["response"])})
				results++
			default:
				if s, ok := p["text"].(string); ok {
					t.items = append(t.items, item{kind: "text", text: s})
				}
			}
		}
		if results > 0 && results == len(t.items) {
			t.role = "tool"
		}
		out = append(out, t)
	}
	return out, nil
}

func chatTurns(body []byte) ([]turn, error) {
	var req struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []turn
	for _, m := range req.Messages {
		t := turn{role: m.Role}
		var texts []string
		switch c := m.Content.(type) {
		case string:
			texts = append(texts, c)
		case []any:
			for _, e := range c {
				b, _ := e.(map[string]any)
				if s, ok := b["text"].(string); ok {
					texts = append(texts, s)
				}
			}
		}
		if m.Role == "tool" {
			t.items = append(t.items, item{kind: "result", id: m.ToolCallID, text: strings.Join(texts, "\n")})
		} else {
			for _, s := range texts {
				t.items = append(t.items, item{kind: "text", text: s})
			}
		}
		for _, tc := range m.ToolCalls {
			t.items = append(t.items, item{kind: "call", id: tc.ID, name: tc.Function.Name, text: flat(tc.Function.Arguments)})
		}
		out = append(out, t)
	}
	return out, nil
}

// pairing returns the calls left unanswered and the results answering no
// call before them. Gemini's older requests name no ids: a model turn's
// calls are answered by the next turn's results, in order.
func pairing(ts []turn) []string {
	var bad []string
	open := map[string]int{} // call id → turn
	for i, t := range ts {
		var calls, results []item
		for _, it := range t.items {
			switch it.kind {
			case "call":
				calls = append(calls, it)
			case "result":
				results = append(results, it)
			}
		}
		for _, r := range results {
			if r.id == "" {
				continue
			}
			if _, ok := open[r.id]; !ok {
				bad = append(bad, fmt.Sprintf("turn %d: a result for %q answers no call before it", i, r.id))
			}
			delete(open, r.id)
		}
		for _, c := range calls {
			if c.id == "" {
				// Answered by the next turn's results, by count.
				n := 0
				if i+1 < len(ts) {
					for _, it := range ts[i+1].items {
						if it.kind == "result" && (it.name == "" || it.name == c.name) {
							n++
						}
					}
				}
				if n == 0 {
					bad = append(bad, fmt.Sprintf("turn %d: call %s (no id) has no result in the next turn", i, c.name))
				}
				continue
			}
			if _, dup := open[c.id]; dup {
				bad = append(bad, fmt.Sprintf("turn %d: call id %q twice", i, c.id))
			}
			open[c.id] = i
		}
	}
	for id, i := range open {
		bad = append(bad, fmt.Sprintf("turn %d: call %q is never answered", i, id))
	}
	return bad
}
