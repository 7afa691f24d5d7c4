package fakeapi_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeapi"
)

func TestCheckRequest(t *testing.T) {
	const (
		use    = `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}`
		result = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}`
		answer = `{"role":"assistant","content":[{"type":"text","text":"Done."}]}`
		prompt = `{"role":"user","content":"go on"}`
	)
	body := func(msgs ...string) string {
		return `{"system":[{"type":"text","text":"sys"}],"tools":[{"name":"Bash"}],"messages":[` + strings.Join(msgs, ",") + `]}`
	}
	for _, c := range []struct {
		name, body string
		want       string // a substring of one problem; "" for none
	}{
		{"OK", body(prompt, use, result, answer, prompt), ""},
		{"OKSystemRole", body(prompt, answer, `{"role":"system","content":"env"}`, prompt), ""},
		{"ErrTwoAssistants", body(prompt, answer, answer, prompt), "messages.2: two assistant messages in a row"},
		{"ErrTwoUsers", body(prompt, prompt), "two user messages in a row"},
		{"ErrUnanswered", body(prompt, use, prompt), "messages.1: tool_use t1 has no tool_result in the next user message"},
		{"ErrOrphanResult", body(prompt, answer, result, answer, prompt), "messages.2: tool_result for t1 matches no tool_use in messages.1"},
		{"ErrAnsweredTwice", body(prompt, use, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"},{"type":"tool_result","tool_use_id":"t1"}]}`, answer, prompt), "a tool_use answered twice"},
		{"ErrResultAfterText", body(prompt, use, `{"role":"user","content":[{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":"t1"}]}`, answer, prompt), "tool_result after a non-tool_result block"},
		{"ErrDuplicateID", body(prompt, use, result, use, result, answer, prompt), "duplicate tool_use id t1 (first at messages.1)"},
		{"ErrEmptyText", body(prompt, `{"role":"assistant","content":[{"type":"text","text":" \n"}]}`, prompt), "messages.1.content.0: empty or whitespace-only text block"},
		{"ErrEmptyContent", body(prompt, `{"role":"assistant","content":[]}`, prompt), "messages.1: empty content"},
		{"ErrUnsigned", body(prompt, `{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"x"}]}`, prompt), "thinking block without signature"},
		{"ErrThinkingFromUser", body(`{"role":"user","content":[{"type":"thinking","thinking":"hm","signature":"s"}]}`), "thinking in a user message"},
		{"ErrRedacted", body(prompt, `{"role":"assistant","content":[{"type":"redacted_thinking"},{"type":"text","text":"x"}]}`, prompt), "redacted_thinking without data"},
		{"ErrFirstAssistant", body(answer, prompt), "first conversation role is \"assistant\""},
		{"ErrPrefill", body(prompt, answer), "last message is not from the user"},
		{"ErrEmptySystem", `{"system":[{"type":"text","text":""}],"messages":[` + prompt + `]}`, "system.0: empty text"},
		{"ErrDuplicateTool", `{"tools":[{"name":"Bash"},{"name":"Bash"}],"messages":[` + prompt + `]}`, "tools: duplicate tool names"},
		{"ErrCacheMarks", body(`{"role":"user","content":[` + strings.Repeat(`{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},`, 5) + `{"type":"text","text":"b"}]}`), "5 cache_control breakpoints (max 4)"},
		{"ErrWindow", body(`{"role":"user","content":"` + strings.Repeat("x", 3100) + `"}`), "tokens estimated (> 1000 window"},
		{"ErrNoMessages", `{"messages":[]}`, "messages: missing or empty"},
		{"ErrUnreadable", `{`, "body:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			probs := fakeapi.CheckRequest([]byte(c.body), 1000)
			if c.want == "" {
				if len(probs) > 0 {
					t.Fatalf("problems in a good request: %q", probs)
				}
				return
			}
			for _, p := range probs {
				if strings.Contains(p, c.want) {
					return
				}
			}
			t.Fatalf("problems %q, want one with %q", probs, c.want)
		})
	}
}

// TestCheckRequest_AgreesWithPython runs shared/tools/check_request.py on
// the same bodies: both must find problems in the same ones.
func TestCheckRequest_AgreesWithPython(t *testing.T) {
	script := "../../../shared/tools/check_request.py"
	if _, err := os.Stat(script); err != nil {
		t.Skipf("no %s: %v", script, err)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	for i, body := range []string{
		`{"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"text","text":"b"}]},{"role":"user","content":"c"}]}`,
		`{"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"text","text":"b"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]},{"role":"user","content":"c"}]}`,
		`{"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"tool_use","id":"x","name":"Bash","input":{}}]},{"role":"user","content":"c"}]}`,
	} {
		path := filepath.Join(dir, "body.json")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("python3", script, path).CombinedOutput()
		pyBad := err != nil
		goBad := len(fakeapi.CheckRequest([]byte(body), 0)) > 0
		if pyBad != goBad {
			t.Errorf("body %d: python says bad=%v (%s), Go says bad=%v", i, pyBad, out, goBad)
		}
	}
}
