package fakeapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestResponses checks the Responses stand-in's script: the first request
// after a prompt gets the first step (a function call), the request that
// carries its output gets the second, other prompts the default reply, and
// every request is recorded.
func TestResponses(t *testing.T) {
	s := fakeapi.NewResponses(fakeapi.ResponsesTurn{Match: "list files", Steps: [][]fakeapi.Item{
		{{Type: "function_call", Name: "exec_command", Arguments: map[string]any{"cmd": "ls"}}},
		{{Type: "message", Text: "Two files."}},
	}})
	defer s.Close()
	post := func(body string) string {
		resp, err := http.Post(s.URL+"/v1/responses", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	env := `{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/x</cwd>\n</environment_context>"}]}`
	user := `{"type":"message","role":"user","content":[{"type":"input_text","text":"please list files"}]}`
	first := post(`{"input":[` + env + `,` + user + `]}`)
	if !strings.Contains(first, "event: response.created") || !strings.Contains(first, `"name":"exec_command"`) ||
		!strings.Contains(first, "event: response.completed") {
		t.Fatalf("first reply:\n%s", first)
	}
	second := post(`{"input":[` + user + `,{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"c1"},{"type":"function_call_output","call_id":"c1","output":"a b"}]}`)
	if !strings.Contains(second, "Two files.") {
		t.Fatalf("second reply:\n%s", second)
	}
	if other := post(`{"input":[` + env + `]}`); !strings.Contains(other, fakeapi.DefaultReply) {
		t.Fatalf("a request without a prompt:\n%s", other)
	}
	if n := len(s.Requests()); n != 3 {
		t.Fatalf("%d requests recorded, want 3", n)
	}
	resp, err := http.Get(s.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "fake-model") {
		t.Fatalf("models: %s", b)
	}
}
