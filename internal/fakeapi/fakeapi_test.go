package fakeapi_test

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeapi"
)

func TestServer(t *testing.T) {
	s := fakeapi.New(fakeapi.Turn{Match: "list files", Steps: [][]fakeapi.Block{
		{{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": "ls"}}},
		{{Type: "text", Text: "Two files."}},
	}})
	defer s.Close()
	post := func(body string) string {
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
		}
		return b.String()
	}
	t.Run("Stream", func(t *testing.T) {
		got := post(`{"stream":true,"tools":[{}],"messages":[{"role":"user","content":"please list files"}]}`)
		if !strings.Contains(got, "event: message_start") || !strings.Contains(got, `"name":"Bash"`) || !strings.Contains(got, `"stop_reason":"tool_use"`) {
			t.Fatalf("stream = %s", got)
		}
	})
	t.Run("Step", func(t *testing.T) {
		got := post(`{"tools":[{}],"messages":[{"role":"user","content":"please list files"},{"role":"assistant","content":[]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"a b"}]}]}`)
		if !strings.Contains(got, "Two files.") || !strings.Contains(got, `"end_turn"`) {
			t.Fatalf("reply = %s", got)
		}
	})
	t.Run("Default", func(t *testing.T) {
		if got := post(`{"messages":[{"role":"user","content":"hello"}]}`); !strings.Contains(got, fakeapi.DefaultReply) {
			t.Fatalf("reply = %s", got)
		}
	})
	if n := len(s.Requests()); n != 3 {
		t.Fatalf("recorded %d requests, want 3", n)
	}
}

// A long run goes on after a compaction, though the request no longer
// holds its prompt; the compaction request gets the summary.
func TestServer_CompactionMidRun(t *testing.T) {
	step := func(cmd string) []fakeapi.Block {
		return []fakeapi.Block{{Type: "tool_use", Name: "Bash", Input: map[string]any{"command": cmd}}}
	}
	s := fakeapi.New(fakeapi.Turn{Match: "work alone", Steps: [][]fakeapi.Block{step("one"), step("two"), step("three"), {{Type: "text", Text: "All done."}}}})
	defer s.Close()
	s.Summary = "SUMMARY-TEXT"
	s.Usage = func(n int) int { return n / fakeapi.BytesPerToken }
	post := func(body string) string {
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
		}
		return b.String()
	}
	const use = `{"role":"assistant","content":[{"type":"tool_use","id":"x","name":"Bash","input":{}}]}`
	const result = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"ok"}]}`
	if got := post(`{"tools":[{}],"messages":[{"role":"user","content":"please work alone"},` + use + `,` + result + `]}`); !strings.Contains(got, `"command":"two"`) {
		t.Fatalf("step 1 = %s", got)
	}
	body := `{"tools":[{}],"messages":[{"role":"user","content":"please work alone"},` + use + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"ok"},{"type":"text","text":"` + fakeapi.CompactMarker + ` and summarize"}]}]}`
	if got := post(body); !strings.Contains(got, "SUMMARY-TEXT") || !strings.Contains(got, fmt.Sprintf(`"input_tokens":%d`, len(body)/3)) {
		t.Fatalf("compaction = %s", got)
	}
	if got := post(`{"tools":[{}],"messages":[{"role":"user","content":"This session is being continued. SUMMARY-TEXT"}]}`); !strings.Contains(got, `"command":"three"`) {
		t.Fatalf("after the compaction = %s", got)
	}
	if got := post(`{"tools":[{}],"messages":[{"role":"user","content":"This session is being continued. SUMMARY-TEXT"},` + use + `,` + result + `]}`); !strings.Contains(got, "All done.") {
		t.Fatalf("the end = %s", got)
	}
}
