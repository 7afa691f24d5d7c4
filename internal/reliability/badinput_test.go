package reliability_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
)

// badInputs returns the parsers' fuzz corpora (claudecode/testdata/fuzz/*,
// where `go test -fuzz` keeps what it found), every line of the sample
// transcripts, and lines made to hurt.
func badInputs(tb testing.TB) [][]byte {
	tb.Helper()
	var inputs [][]byte
	corpus, _ := filepath.Glob("../../claudecode/testdata/fuzz/*/*")
	for _, path := range corpus {
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		if in, ok := fuzzValue(data); ok {
			inputs = append(inputs, in)
		}
	}
	tb.Logf("%d fuzz corpus entries", len(inputs))
	samples, _ := filepath.Glob("../../testdata/claudecode/*.jsonl")
	for _, path := range samples {
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		inputs = append(inputs, claudecode.SplitLines(data)...)
	}
	huge := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"` +
		strings.Repeat("x", 8<<20) + `"}]},"uuid":"u1","timestamp":"2026-03-19T10:23:00Z","sessionId":"s"}` + "\n"
	return append(inputs,
		[]byte("\xff\xfe\xfd not utf-8\n"),
		[]byte("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"nul \x00 inside \xc3\x28\"},\"uuid\":\"u\"}\n"),
		[]byte("{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"\\u0000 escaped nul\"}]}}\n"),
		[]byte("{\"type\":\"mystery\",\"x\":1}\r\n"),
		[]byte("{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"content\":[{\"type\":\"image\"}]}]}}\n"),
		[]byte("\n\n\r\n"),
		[]byte("[1,2,3]\n"),
		[]byte(`{"type":"user","message":{"role":"user","content":"truncated`), // no newline: left pending
		[]byte(huge),
	)
}

// fuzzValue reads a corpus file of `go test fuzz v1` holding one []byte.
func fuzzValue(data []byte) ([]byte, bool) {
	lines := strings.SplitN(string(data), "\n", 3)
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "go test fuzz v1") {
		return nil, false
	}
	v := strings.TrimSpace(lines[1])
	if !strings.HasPrefix(v, "[]byte(") || !strings.HasSuffix(v, ")") {
		return nil, false
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(v, "[]byte("), ")"))
	return []byte(s), err == nil
}

// TestBadInput imports each input as a transcript of its own, and all of
// them as one, through the whole import path: nothing fails, everything
// complete comes back byte for byte, and a second import adds nothing.
func TestBadInput(t *testing.T) {
	forEachBackend(t, func(t *testing.T, fresh func(testing.TB) string) {
		ctx, start := context.Background(), time.Now()
		inputs := badInputs(t)
		st, dir := mustOpenStore(t, fresh(t)), t.TempDir()
		files := map[string][]byte{}
		for i, in := range inputs {
			files[fmt.Sprintf("5f0c2a1e-8d4b-4c7a-9e31-%012d.jsonl", i)] = in
		}
		files["5f0c2a1e-8d4b-4c7a-9e31-999999999999.jsonl"] = bytes.Join(inputs, []byte("\n"))
		var ops, failures, verified int
		for name, data := range files {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"", inscribe.StatusUnchanged} {
				ops++
				f, _ := importer(st, 64<<10).ImportFile(ctx, path)
				if f.Status == inscribe.StatusFailed || (want != "" && f.Status != want && f.Pending == 0) {
					failures++
					t.Errorf("%s (%.60q…): %s %s", name, data, f.Status, f.Error)
				}
			}
			n, err := checkStored(ctx, st, strings.TrimSuffix(name, ".jsonl"), complete(data))
			if err != nil {
				failures++
				t.Errorf("%s (%.60q…): %v", name, data, err)
			}
			verified += n
		}
		summary(t, start, ops, failures, 0, verified)
	})
}
