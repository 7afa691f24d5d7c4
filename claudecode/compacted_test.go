package claudecode_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
)

// TestAfterCompaction: after a boundary no reply followed, the estimate
// is the first reply's usage less what was sent with it, plus what the
// transcript records after the boundary (the summary, a file the client
// attaches again, hook context), a hook's raw output and sidechain lines
// left out; a reply after the boundary, or none, is no estimate.
func TestAfterCompaction(t *testing.T) {
	line := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) + "\n" }
	prompt, file, hook := "start the parser", strings.Repeat("// parser code\n", 2000), "<context>cairn prime</context>"
	data := line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}}) +
		line(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "content": []any{map[string]any{"type": "text", "text": "ok"}},
			"usage": map[string]any{"input_tokens": 3, "cache_read_input_tokens": 20_000}}}) +
		line(map[string]any{"type": "system", "subtype": "compact_boundary", "compactMetadata": map[string]any{"trigger": "manual", "preTokens": 90_000}}) +
		line(map[string]any{"type": "user", "isCompactSummary": true, "message": map[string]any{"role": "user", "content": "SUMMARY"}}) +
		line(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "file", "file": map[string]any{"content": file}}}) +
		line(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "hook_success", "stdout": strings.Repeat("x", 10_000)}}) +
		line(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "hook_additional_context", "content": []string{hook}}}) +
		line(map[string]any{"type": "user", "isSidechain": true, "message": map[string]any{"role": "user", "content": strings.Repeat("y", 10_000)}})
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	overhead := 20_003 - (cairn.EstimateTokens(prompt+"\n\n") + cairn.BlockOverheadTokens)
	after := cairn.EstimateTokens("SUMMARY\n\n") + cairn.EstimateTokens("file\n"+file+"\n") + cairn.EstimateTokens("hook_additional_context\n"+hook+"\n") + 3*cairn.BlockOverheadTokens
	got, ok, err := claudecode.AfterCompaction(open(t, path))
	if err != nil || !ok || got != overhead+after {
		t.Errorf("got %d (%v, %v), want %d: overhead %d and %d after the boundary", got, ok, err, overhead+after, overhead, after)
	}

	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "model": "claude-sonnet-4-5", "usage": map[string]any{"input_tokens": 9_000}}}))
	f.Close()
	if got, ok, err := claudecode.AfterCompaction(open(t, path)); err != nil || ok {
		t.Errorf("a reply after the boundary: %d, %v, %v; want no estimate", got, ok, err)
	}
	os.WriteFile(path, []byte(data[:strings.Index(data, `{"compactMetadata"`)]), 0o644)
	if got, ok, err := claudecode.AfterCompaction(open(t, path)); err != nil || ok {
		t.Errorf("no boundary: %d, %v, %v; want no estimate", got, ok, err)
	}
}
