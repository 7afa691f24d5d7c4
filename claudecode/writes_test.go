package claudecode_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
)

// TestLastWrites reads the writes at the end of every sample and public
// transcript: none of these real sessions ends in a run of empty writes
// (the exhaustion check raises no false alarm on them), and each call
// names its file. A transcript ending in three empty Write calls, as the
// real client records them, is a run of three.
func TestLastWrites(t *testing.T) {
	seen := 0
	for _, path := range append(samples(t), shared(t)...) {
		calls, err := claudecode.LastWrites(open(t, path))
		if err != nil {
			t.Fatal(err)
		}
		seen += len(calls)
		if n := cairn.ExhaustionRun(calls); n >= cairn.DefaultExhaustionRun {
			t.Errorf("%s: a run of %d empty writes", path, n)
		}
		for _, c := range calls {
			if c.Path == "" || c.ToolID == "" {
				t.Errorf("%s: call without path or id: %+v", path, c)
			}
		}
	}
	t.Logf("%d writes read", seen)

	const empty = `{"type":"assistant","sessionId":"s","message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Write","input":{"file_path":"/p/a.md"}}]}}
{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","content":"<tool_use_error>InputValidationError: Write failed due to the following issue:\nThe required parameter ` + "`content`" + ` is missing</tool_use_error>","is_error":true,"tool_use_id":"t%d"}]}}
`
	var data []byte
	for i := range 3 {
		data = append(data, []byte(fmt.Sprintf(empty, i, i, i))...)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	calls, err := claudecode.LastWrites(open(t, path))
	if err != nil {
		t.Fatal(err)
	}
	if n := cairn.ExhaustionRun(calls); n != 3 || !calls[2].Failed {
		t.Fatalf("run %d, calls %+v", n, calls)
	}
	none := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(none, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if calls, err := claudecode.LastWrites(open(t, none)); err != nil || calls != nil {
		t.Fatalf("empty file: %v %v", calls, err)
	}
}

// TestWritesSince reads only the whole lines from the offset given on:
// the empty writes before it are not read again, a line still being
// written is left for the next read, and an offset that is no line's
// start reads the tail as LastWrites does.
func TestWritesSince(t *testing.T) {
	const empty = `{"type":"assistant","sessionId":"s","message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Write","input":{"file_path":"/p/a.md"}}]}}
`
	var data []byte
	for i := range 3 {
		data = append(data, fmt.Sprintf(empty, i, i)...)
	}
	off := int64(len(data))
	data = append(data, fmt.Sprintf(empty, 3, 3)...)
	whole := int64(len(data))
	data = append(data, `{"type":"assistant","sessionId":"s","message":{"id":"m4","role":"assistant","content":[{"type":"tool_use","id":"t4","name":"Write","input":{"file_path":"/p/a.md"}}`...)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f := open(t, path)
	calls, from, end, err := claudecode.WritesSince(f, off)
	if err != nil || len(calls) != 1 || calls[0].ToolID != "t3" || from != off || end != whole {
		t.Fatalf("from %d: calls %+v, end %d (want t3, %d), %v", off, calls, end, whole, err)
	}
	if calls, _, end, err := claudecode.WritesSince(f, whole); err != nil || calls != nil || end != whole {
		t.Fatalf("from the unfinished line: calls %+v, end %d, %v", calls, end, err)
	}
	if calls, from, end, err := claudecode.WritesSince(f, off+5); err != nil || len(calls) != 4 || from != 0 || end != whole {
		t.Fatalf("from inside a line: calls %+v, end %d, %v", calls, end, err)
	}
}
