// Package bench builds synthetic corpora from the sample transcripts and
// measures cairn on them: import throughput, incremental re-import, search
// latency. `go test -bench . ./bench` runs the Go benchmarks; the program
// in cmd/cairnbench prints the figures the issues name.
package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
)

// A Generator turns sample transcripts into new ones: fresh uuids, shifted
// times and text drawn from a Zipf-distributed vocabulary, so that search
// sees a realistic spread of common and rare words.
type Generator struct {
	rng     *rand.Rand
	zipf    *rand.Zipf
	samples [][][]byte // lines of each sample transcript
	Vocab   []string
}

// NewGenerator reads the sample transcripts (*.jsonl directly under dir).
func NewGenerator(dir string, seed int64) (*Generator, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no sample transcripts in %s", dir)
	}
	g := &Generator{rng: rand.New(rand.NewSource(seed))}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		g.samples = append(g.samples, bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")))
	}
	g.Vocab = vocabulary(g.rng, 20000)
	g.zipf = rand.NewZipf(g.rng, 1.1, 2, uint64(len(g.Vocab)-1))
	return g, nil
}

// vocabulary returns n distinct pronounceable words, the most common first.
func vocabulary(rng *rand.Rand, n int) []string {
	common := strings.Fields(`the a to of and in is it that for on with as this be are was not you at by
		file test function error session database migration benchmark console authentication token
		server request import export round agent context index search query build deploy config`)
	cons, vows := "bcdfghjklmnprstvwz", "aeiou"
	seen := map[string]bool{}
	words := append([]string(nil), common...)
	for _, w := range common {
		seen[w] = true
	}
	for len(words) < n {
		var b strings.Builder
		for range 2 + rng.Intn(3) {
			b.WriteByte(cons[rng.Intn(len(cons))])
			b.WriteByte(vows[rng.Intn(len(vows))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// Text returns about n bytes of words.
func (g *Generator) Text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.Vocab[g.zipf.Uint64()])
	}
	return b.String()
}

// Session writes one session of at least size bytes to dir (as
// <uuid>.jsonl) by replaying sample transcripts with fresh identities, and
// returns its path.
func (g *Generator) Session(dir string, size int64) (string, int64, error) {
	id := uuid.New().String()
	path := filepath.Join(dir, id+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(g.rng.Intn(300*24)) * time.Hour)
	var written int64
	var buf bytes.Buffer
	for written < size {
		buf.Reset()
		g.replay(&buf, id, g.samples[g.rng.Intn(len(g.samples))], &start)
		n, err := f.Write(buf.Bytes())
		if err != nil {
			return "", 0, err
		}
		written += int64(n)
	}
	return path, written, f.Close()
}

// Round returns the lines of one more prompt and answer for session id, to
// append to its file.
func (g *Generator) Round(id string, at time.Time) []byte {
	user := map[string]any{"type": "user", "sessionId": id, "uuid": uuid.NewString(), "parentUuid": nil,
		"timestamp": at.Format(time.RFC3339Nano), "cwd": "/tmp/bench", "isSidechain": false,
		"message": map[string]any{"role": "user", "content": g.Text(120)}}
	asst := map[string]any{"type": "assistant", "sessionId": id, "uuid": uuid.NewString(), "parentUuid": user["uuid"],
		"timestamp": at.Add(time.Second).Format(time.RFC3339Nano), "cwd": "/tmp/bench", "isSidechain": false,
		"message": map[string]any{"id": "msg_" + uuid.NewString(), "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": g.Text(400)}}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 20}}}
	a, _ := json.Marshal(user)
	b, _ := json.Marshal(asst)
	return append(append(append(a, '\n'), b...), '\n')
}

// replay writes sample's lines for session id with fresh uuids, times
// after *at, and new text of the same length in every text field.
func (g *Generator) replay(w *bytes.Buffer, id string, sample [][]byte, at *time.Time) {
	ids := map[string]string{}
	fresh := func(old string) string {
		if old == "" {
			return ""
		}
		if n, ok := ids[old]; ok {
			return n
		}
		ids[old] = uuid.NewString()
		return ids[old]
	}
	for _, raw := range sample {
		var v map[string]any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		if _, ok := v["sessionId"]; ok {
			v["sessionId"] = id
		}
		for _, k := range []string{"uuid", "parentUuid", "logicalParentUuid", "promptId"} {
			if s, ok := v[k].(string); ok {
				v[k] = fresh(s)
			}
		}
		if _, ok := v["timestamp"]; ok {
			*at = at.Add(time.Duration(200+g.rng.Intn(5000)) * time.Millisecond)
			v["timestamp"] = at.Format("2006-01-02T15:04:05.000Z")
		}
		if m, ok := v["message"].(map[string]any); ok {
			if s, ok := m["id"].(string); ok {
				m["id"] = "msg_" + fresh(s)
			}
			m["content"] = g.vary(m["content"])
		}
		out, _ := json.Marshal(v)
		w.Write(out)
		w.WriteByte('\n')
	}
}

// vary replaces the text in a message content with new text of the same
// length; structure (tool ids, names, inputs) is kept.
func (g *Generator) vary(c any) any {
	switch c := c.(type) {
	case string:
		return g.Text(len(c))
	case []any:
		for _, b := range c {
			m, ok := b.(map[string]any)
			if !ok {
				continue
			}
			for _, k := range []string{"text", "thinking"} {
				if s, ok := m[k].(string); ok {
					m[k] = g.Text(len(s))
				}
			}
			if inner, ok := m["content"]; ok {
				m["content"] = g.vary(inner)
			}
		}
	}
	return c
}
