package claudecode

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTurnEnded: a turn has ended once the last main-chain message is a
// reply without a tool call; a tool call, its result or a prompt last
// mean the client has more to write; lines of other types and a
// sub-agent's do not count.
func TestTurnEnded(t *testing.T) {
	const (
		call   = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}`
		result = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`
		answer = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}`
		side   = `{"type":"user","isSidechain":true,"message":{"role":"user","content":"sub"}}`
		other  = `{"type":"system","subtype":"stop_hook_summary"}`
	)
	for _, c := range []struct {
		lines string
		ended bool
	}{
		{call + "\n" + result + "\n", false},
		{call + "\n", false},
		{call + "\n" + result + "\n" + answer + "\n", true},
		{answer + "\n" + other + "\n" + side + "\n", true},
		{"", false},
	} {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(path, []byte(c.lines), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		ended, err := TurnEnded(f)
		f.Close()
		if err != nil || ended != c.ended {
			t.Errorf("%q: ended %v, %v; want %v", c.lines, ended, err, c.ended)
		}
	}
}
