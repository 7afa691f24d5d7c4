package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkHook runs the Claude Code hooks in this process against the
// workspace $CAIRN_HOOKBENCH_WS (one that bench/cmd/hookbench made: a
// store holding one long session, its transcript beside it), one round
// appended to the transcript before each call of the events that
// inscribe, as a Claude Code session fires them. The store is closed
// outside the timer: a hook's process exits without closing it
// ([Main.endHookStore]). With -cpuprofile it shows where a hook's CPU
// goes, process start-up aside.
//
//	CAIRN_HOOKBENCH_WS=/tmp/hookbench/ws-1073741824 go test ./internal/cli -run '^$' -bench Hook -cpuprofile cpu.out
func BenchmarkHook(b *testing.B) {
	ws := os.Getenv("CAIRN_HOOKBENCH_WS")
	if ws == "" {
		b.Skip("set CAIRN_HOOKBENCH_WS to a workspace bench/cmd/hookbench made")
	}
	paths, _ := filepath.Glob(filepath.Join(ws, "*.jsonl"))
	if len(paths) != 1 {
		b.Fatalf("want one transcript in %s, found %d", ws, len(paths))
	}
	transcript := paths[0]
	id := strings.TrimSuffix(filepath.Base(transcript), ".jsonl")
	for _, c := range []struct {
		event  string
		fields map[string]any
		append bool
	}{
		{"SessionStart", map[string]any{"source": "startup"}, false},
		{"UserPromptSubmit", map[string]any{"prompt": "Carry on."}, true},
		{"Stop", nil, true},
		{"PreCompact", map[string]any{"trigger": "manual"}, true},
		{"SessionEnd", map[string]any{"reason": "other"}, true},
		{"SessionEnd", map[string]any{"reason": "other"}, false},
	} {
		name := c.event
		if c.append {
			name += "/appended"
		}
		b.Run(name, func(b *testing.B) {
			in := map[string]any{"session_id": id, "transcript_path": transcript, "cwd": ws, "hook_event_name": c.event}
			for k, v := range c.fields {
				in[k] = v
			}
			input, _ := json.Marshal(in)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if c.append {
					appendBenchRound(b, transcript, id)
				}
				m := NewMain(bytes.NewReader(input), io.Discard, io.Discard)
				getenv := m.Getenv
				m.Getenv = func(k string) string {
					if k == "CAIRN_TRANSCRIPT_DIRS" {
						return ws
					}
					return getenv(k)
				}
				m.inHook = true
				b.StartTimer()
				if err := m.hook(context.Background(), c.event); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if m.hookStore != nil {
					m.hookStore.Close()
				}
				b.StartTimer()
			}
		})
	}
}

// appendBenchRound appends a prompt and its answer to the transcript.
func appendBenchRound(b *testing.B, path, session string) {
	b.Helper()
	uid := func() string {
		var r [16]byte
		rand.Read(r[:])
		h := hex.EncodeToString(r[:])
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	at := time.Now().UTC()
	u, a := uid(), uid()
	text := strings.Repeat("measure the hook again ", 20)
	lines := fmt.Sprintf(`{"type":"user","sessionId":%q,"uuid":%q,"parentUuid":null,"timestamp":%q,"cwd":"/tmp/bench","isSidechain":false,"message":{"role":"user","content":%q}}
{"type":"assistant","sessionId":%q,"uuid":%q,"parentUuid":%q,"timestamp":%q,"cwd":"/tmp/bench","isSidechain":false,"message":{"id":"msg_%s","role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":10,"output_tokens":20}}}
`, session, u, at.Format(time.RFC3339Nano), text[:120], session, a, u, at.Add(time.Second).Format(time.RFC3339Nano), uid(), text)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(lines); err != nil {
		b.Fatal(err)
	}
}
