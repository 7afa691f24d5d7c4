package bench

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// uuidPattern finds the uuids a transcript holds: session ids, message
// ids, parent links.
var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// RealCorpus writes copies of the real transcripts under src (every
// *.jsonl, subagent folders included) into dst until it holds at least
// size bytes. Each copy gets fresh uuids, replaced consistently in its
// paths and lines, so every copy is new sessions with their links intact,
// and the text people and agents wrote is as they wrote it. It returns the
// bytes written.
func RealCorpus(src, dst string, size int64) (int64, error) {
	var files []string
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	if len(files) == 0 {
		return 0, fmt.Errorf("no transcripts (*.jsonl) under %s", src)
	}
	var total int64
	for copyN := 0; total < size; copyN++ {
		fresh := map[string]string{}
		swap := func(b []byte) []byte {
			return uuidPattern.ReplaceAllFunc(b, func(u []byte) []byte {
				if n, ok := fresh[string(u)]; ok {
					return []byte(n)
				}
				n := newUUID()
				fresh[string(u)] = n
				return []byte(n)
			})
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return total, err
			}
			rel, _ := filepath.Rel(src, f)
			out := filepath.Join(dst, fmt.Sprintf("copy%04d", copyN), string(swap([]byte(rel))))
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return total, err
			}
			data = swap(bytes.Clone(data))
			if err := os.WriteFile(out, data, 0o644); err != nil {
				return total, err
			}
			total += int64(len(data))
		}
	}
	return total, nil
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
