package loop

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExhaustion_ReadsSince: each check reads only the lines appended
// since the previous one, carrying the run it had seen on. Lines already
// read, rewritten in place into empty writes, are not read again (a read
// of the transcript's tail would count them); the run the new lines make
// is counted on from what was kept, and acts at the third.
func TestExhaustion_ReadsSince(t *testing.T) {
	l := newLoop(t)
	const session = "5e5e5e5e-0000-4000-8000-000000000001"
	n := 0
	write := func(content string) string {
		n++
		return fmt.Sprintf(`{"type":"assistant","sessionId":"%s","uuid":"00000000-0000-4000-8000-%012d","parentUuid":"00000000-0000-4000-8000-%012d","timestamp":"2026-03-19T10:25:00Z","cwd":"/r","message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Write","input":{"file_path":"/r/a.md"%s}}]}}`+"\n",
			session, n+1, n, n, n, content)
	}
	data := fmt.Sprintf(`{"type":"user","sessionId":"%s","uuid":"00000000-0000-4000-8000-000000000001","parentUuid":null,"timestamp":"2026-03-19T10:24:00Z","cwd":"/r","message":{"role":"user","content":"Write chapter 2"}}`+"\n", session)
	for range 3 {
		data += write(`,"content":"x"`)
	}
	path := filepath.Join(l.Wd, session+".jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := Event{Kind: ToolResult, Harness: ClaudeCode, Session: session, Transcript: path}
	if r := handle(t, l, ev); r.Agent != "" {
		t.Fatalf("writes with content: %q", r.Agent)
	}
	data = strings.ReplaceAll(data, `"content":"x"`, `"contenu":"x"`)
	data += write("")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := handle(t, l, ev); r.Agent != "" {
		t.Fatalf("one empty write since the last check: %q (lines read before were read again)", r.Agent)
	}
	data += write("") + write("")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := handle(t, l, ev); !strings.Contains(r.Agent, "3 Write/Edit calls in a row carried no content") {
		t.Fatalf("the third empty write in a row: %q", r.Agent)
	}
}
