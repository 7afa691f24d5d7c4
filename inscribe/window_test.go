package inscribe

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestWindows_Holds: the check before a batch is stored sees a change of
// any byte in the head or tail window the batch's hashes cover, and a
// file cut shorter, and nothing else.
func TestWindows_Holds(t *testing.T) {
	var data []byte
	for i := 0; len(data) < 3*cairn.HeadSize; i++ {
		data = fmt.Appendf(data, `{"n":%d,"text":"line %d of a file read in windows"}`+"\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w := &windows{}
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(l) > 0 {
			w.add(l)
		}
	}
	snap := w.snapshot()
	for _, c := range []struct {
		name string
		at   int // the byte changed, -1 for none
		want bool
	}{
		{"Same", -1, true},
		{"HeadFirstByte", 0, false},
		{"HeadLastByte", cairn.HeadSize - 1, false},
		{"Between", cairn.HeadSize + 10, true},
		{"TailFirstByte", len(data) - cairn.TailSize, false},
		{"TailLastByte", len(data) - 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := bytes.Clone(data)
			if c.at >= 0 {
				b[c.at] ^= 1
			}
			f := writeOpen(t, path, b)
			if got, err := snap.holds(f, int64(len(data))); got != c.want || err != nil {
				t.Fatalf("holds = %v, %v; want %v", got, err, c.want)
			}
		})
	}
	t.Run("Shorter", func(t *testing.T) {
		f := writeOpen(t, path, data[:len(data)-1])
		if got, err := snap.holds(f, int64(len(data))); got || err == nil {
			t.Fatalf("holds = %v, %v; want errChanged", got, err)
		}
	})
}

// writeOpen writes b to path and opens it for reading until the test ends.
func writeOpen(t *testing.T, path string, b []byte) *os.File {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
