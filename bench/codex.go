package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"
)

// CodexSession writes one Codex rollout of at least size bytes to dir (as
// rollout-<time>-<uuid>.jsonl) by replaying the Codex samples (rollouts the
// real client wrote, in samples) after one session_meta, with a fresh
// thread id, shifted times and new text of the same length in every
// message, output and event; it returns its path and size.
func (g *Generator) CodexSession(dir string, samples [][][]byte, size int64) (string, int64, error) {
	id := uuid.Must(uuid.NewV7()).String()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(g.rng.Intn(300*24)) * time.Hour)
	path := filepath.Join(dir, "rollout-"+start.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	var written int64
	var buf bytes.Buffer
	ordinal, metaDone := 0, false
	for written < size {
		buf.Reset()
		for _, raw := range samples[g.rng.Intn(len(samples))] {
			var v map[string]any
			if json.Unmarshal(raw, &v) != nil {
				continue
			}
			p, _ := v["payload"].(map[string]any)
			if v["type"] == "session_meta" {
				if metaDone {
					continue
				}
				metaDone = true
				if p != nil {
					p["id"], p["session_id"] = id, id
				}
			}
			start = start.Add(time.Duration(50+g.rng.Intn(2000)) * time.Millisecond)
			v["timestamp"] = start.Format("2006-01-02T15:04:05.000Z")
			if _, ok := v["ordinal"]; ok {
				v["ordinal"] = ordinal
			}
			ordinal++
			if p != nil && v["type"] != "session_meta" {
				g.varyCodex(p)
			}
			out, _ := json.Marshal(v)
			buf.Write(out)
			buf.WriteByte('\n')
		}
		n, err := f.Write(buf.Bytes())
		if err != nil {
			return "", 0, err
		}
		written += int64(n)
	}
	return path, written, f.Close()
}

// varyCodex replaces the text of a payload (message content, outputs,
// event messages) with new text of the same length.
func (g *Generator) varyCodex(p map[string]any) {
	for _, k := range []string{"output", "message", "last_agent_message"} {
		if s, ok := p[k].(string); ok {
			p[k] = g.Text(len(s))
		}
	}
	if _, ok := p["content"]; ok {
		p["content"] = g.vary(p["content"])
	}
}

// ReadSamples reads the *.jsonl files directly under dir, split in lines.
func ReadSamples(dir string) ([][][]byte, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no sample transcripts in %s", dir)
	}
	var out [][][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")))
	}
	return out, nil
}
