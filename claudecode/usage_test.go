package claudecode_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
)

// TestLastOccupancy reads the occupancy at the end of the real long,
// auto-compacted sessions and checks it against a scan of every line.
func TestLastOccupancy(t *testing.T) {
	paths, _ := filepath.Glob("../../shared/testdata/transcripts/marot__spotter/long/*.jsonl")
	if len(paths) == 0 {
		t.Skip("no long transcripts in ../../shared/testdata")
	}
	for _, path := range paths {
		got, err := claudecode.LastOccupancy(open(t, path), cairn.WindowSignals{})
		if err != nil {
			t.Fatal(err)
		}
		want := scanOccupancy(t, path)
		if got == nil || got.Tokens != want {
			t.Errorf("%s: got %+v, want %d tokens", filepath.Base(path), got, want)
			continue
		}
		if w := cairn.ClaudeCodeWindow(cairn.WindowSignals{Model: got.Model, Tokens: want}); got.Window != w || got.Percent() != int(want*100/w.CompactAt) {
			t.Errorf("%s: window %+v, %d %%", filepath.Base(path), got.Window, got.Percent())
		}
	}
}

// open opens path for reading until the test ends.
func open(tb testing.TB, path string) *os.File {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}

// scanOccupancy is the slow reference: every line, the last main-chain
// assistant usage wins; a compaction after it resets it.
func scanOccupancy(t *testing.T, path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tokens int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l struct {
			Type, Subtype string
			IsSidechain   bool
			Message       struct {
				Model string
				Usage *struct {
					Input         int64 `json:"input_tokens"`
					CacheRead     int64 `json:"cache_read_input_tokens"`
					CacheCreation int64 `json:"cache_creation_input_tokens"`
				}
			}
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		switch {
		case l.Type == "system" && l.Subtype == "compact_boundary":
			tokens = 0
		case l.Type == "assistant" && !l.IsSidechain && l.Message.Usage != nil && l.Message.Model != "<synthetic>":
			tokens = l.Message.Usage.Input + l.Message.Usage.CacheRead + l.Message.Usage.CacheCreation
		}
	}
	return tokens
}

// TestLastOccupancyCompacted: right after a boundary, nothing is known to
// be held but the summary.
func TestLastOccupancyCompacted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	data := `{"type":"assistant","message":{"model":"claude-opus-4-6","usage":{"input_tokens":5,"cache_read_input_tokens":150000,"cache_creation_input_tokens":1000}}}
{"type":"assistant","isSidechain":true,"message":{"model":"claude-opus-4-6","usage":{"input_tokens":9}}}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := claudecode.LastOccupancy(open(t, path), cairn.WindowSignals{})
	if err != nil || o == nil || o.Tokens != 151005 || o.Percent() != 75 {
		t.Fatalf("got %+v, %v; want 151005 tokens, 75 %% of the way to 200,000 (a 200k model: the client compacts when the API refuses)", o, err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto"}}` + "\n")
	f.Close()
	if o, err := claudecode.LastOccupancy(open(t, path), cairn.WindowSignals{}); err != nil || o == nil || o.Tokens != 0 {
		t.Fatalf("after a boundary: %+v, %v", o, err)
	}
}

// TestLastOccupancy1M: the client writes the model it asked for, with its
// "[1m]", on each reply (requestedModel): a 1M session is measured
// against 1,000,000 tokens, one of the default model (Opus 5.5) too.
func TestLastOccupancy1M(t *testing.T) {
	for name, want := range map[string]int64{"155": cairn.ClaudeLargeWindow, "150": cairn.ClaudeLargeWindow} {
		o, err := claudecode.LastOccupancy(open(t, "../testdata/long/7a11c0de-0000-4000-8000-000000000"+name+".jsonl"), cairn.WindowSignals{})
		if err != nil || o == nil {
			t.Fatalf("%s: %+v, %v", name, o, err)
		}
		if o.Window.Size != want || o.Window.CompactAt != want-33_000 {
			t.Errorf("%s: model %q, window %+v, want %d", name, o.Model, o.Window, want)
		}
	}
}

// BenchmarkLastOccupancy reads the occupancy at the end of the largest
// real transcript, or of $CAIRN_BENCH_TRANSCRIPT (a 100 MB one from
// bench/cmd/hookbench): the cost does not grow with the file.
func BenchmarkLastOccupancy(b *testing.B) {
	path := os.Getenv("CAIRN_BENCH_TRANSCRIPT")
	if path == "" {
		paths, _ := filepath.Glob("../../shared/testdata/transcripts/marot__spotter/long/*.jsonl")
		if len(paths) == 0 {
			b.Skip("no long transcript")
		}
		path = paths[0]
	}
	f := open(b, path)
	for b.Loop() {
		if _, err := claudecode.LastOccupancy(f, cairn.WindowSignals{}); err != nil {
			b.Fatal(err)
		}
	}
}
