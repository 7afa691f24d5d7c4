package sqlite

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/klauspost/compress/s2"
)

// TestCompress_Long checks that a long line compresses to the bytes S2
// gives, without allocating S2's worst-case room on the Go heap (which
// raised the collector's goal by twice a long line).
func TestCompress_Long(t *testing.T) {
	b := bytes.Repeat([]byte(`{"type":"text","text":"block 12 word"},`), 8<<20/38)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	before := m.TotalAlloc
	got := compress(b)
	runtime.ReadMemStats(&m)
	if want := s2.Encode(nil, b); !bytes.Equal(got, want) {
		t.Fatalf("compressed to %d bytes, S2 gives %d", len(got), len(want))
	}
	if allocated := m.TotalAlloc - before; allocated > uint64(len(got))+1<<20 {
		t.Errorf("%d bytes allocated to compress %d bytes into %d", allocated, len(b), len(got))
	}
}
