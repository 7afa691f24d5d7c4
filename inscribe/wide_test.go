package inscribe_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
)

// wideTranscript writes a session whose one assistant line holds n text
// blocks, and returns its path.
func wideTranscript(tb testing.TB, n int) string {
	tb.Helper()
	const id = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"
	var b []byte
	b = fmt.Appendf(b, `{"parentUuid":null,"isSidechain":false,"cwd":"/p","sessionId":%q,"version":"2.1.39","type":"user","message":{"role":"user","content":"start"},"uuid":"u1","timestamp":"2026-02-11T20:36:45.000Z"}`+"\n", id)
	b = fmt.Appendf(b, `{"parentUuid":"u1","isSidechain":false,"cwd":"/p","sessionId":%q,"version":"2.1.39","type":"assistant","message":{"model":"m","id":"msg_1","role":"assistant","content":[`, id)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":"block `...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ` word"}`...)
	}
	b = append(b, `],"usage":{"input_tokens":3,"output_tokens":10}},"type":"assistant","uuid":"a1","timestamp":"2026-02-11T20:36:47.000Z"}`+"\n"...)
	path := filepath.Join(tb.TempDir(), id+".jsonl")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// peakHeap runs f and returns the largest heap seen while it ran, sampled
// every millisecond, and the bytes it allocated.
func peakHeap(f func()) (peak, allocated uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/allocs:bytes"}}
	read := func() (uint64, uint64) {
		metrics.Read(sample)
		return sample[0].Value.Uint64(), sample[1].Value.Uint64()
	}
	runtime.GC()
	_, before := read()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if h, _ := read(); h > peak {
				peak = h
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	_, after := read()
	return peak, after - before
}

// TestImport_WideLine imports a line of many blocks (one assistant message
// of n text blocks) and checks that its cost in memory grows with n and no
// faster: the bytes allocated per block stay the same from n to 4n and
// under a bound, and the heap never holds much more per block than the
// block itself. Decoding all of a message's blocks before making them
// cairn.Blocks, a statement's arguments allocated per 64 rows and every
// block's preview cost 3,200–3,300 bytes allocated per block; binding
// every column of every row, database/sql's arguments for it, and a long
// line's copies (read buffer, decoder) 2,240 (now about 1,000).
func TestImport_WideLine(t *testing.T) {
	const n = 20_000
	perBlock := map[int][2]float64{}
	for _, blocks := range []int{n, 4 * n} {
		path := wideTranscript(t, blocks)
		st := mustOpenStore(t, filepath.Join(t.TempDir(), "cairn.db"))
		peak, allocated := peakHeap(func() { mustImport(t, newImporter(st), path) })
		perBlock[blocks] = [2]float64{float64(peak) / float64(blocks), float64(allocated) / float64(blocks)}
		t.Logf("%d blocks: peak heap %.0f bytes a block, %.0f bytes allocated a block", blocks, perBlock[blocks][0], perBlock[blocks][1])
		r, err := st.rounds.FindRound(context.Background(), "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", 1)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(r.Blocks), blocks+1; got != want {
			t.Fatalf("%d blocks, want %d", got, want)
		}
		if last := r.Blocks[len(r.Blocks)-1].Content; last != fmt.Sprintf("block %d word", blocks-1) {
			t.Fatalf("last block %q", last)
		}
	}
	small, large := perBlock[n], perBlock[4*n]
	if large[1] > 1.25*small[1] {
		t.Errorf("allocations grow faster than the blocks: %.0f bytes a block for %d blocks, %.0f for %d", small[1], n, large[1], 4*n)
	}
	if large[1] > 1400 {
		t.Errorf("%.0f bytes allocated a block, want at most 1400", large[1])
	}
	if large[0] > 1200 {
		t.Errorf("peak heap %.0f bytes a block, want at most 1200", large[0])
	}
}

// heldStore is a store that measures the heap in use while an inscription
// is written: after a collection, when the store is handed the
// inscription and again halfway through its blocks.
type heldStore struct {
	*store
	peak uint64
}

func (s *heldStore) measure() {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.peak = max(s.peak, m.HeapAlloc)
}

func (s *heldStore) Inscribe(ctx context.Context, in *cairn.Inscription) error {
	s.measure()
	all := in.AllBlocks()
	var n int
	for blocks := range all {
		n += len(blocks)
	}
	seen := 0
	in.BlockSeq = func(yield func([]*cairn.Block) bool) {
		for blocks := range all {
			if seen < n/2 && seen+len(blocks) >= n/2 {
				s.measure()
			}
			seen += len(blocks)
			if !yield(blocks) {
				return
			}
		}
	}
	return s.store.Inscribe(ctx, in)
}

// TestImport_WideLineHeld checks that the heap an import holds while it
// writes a line of 200,000 blocks is bounded by the line's size, not its
// blocks: it holds the line's bytes and a few slices of blocks. Holding
// every cairn.Block of the line until the batch was written cost some 300
// bytes a block, 7 times the line's 43 bytes a block.
func TestImport_WideLineHeld(t *testing.T) {
	const n = 200_000
	path := wideTranscript(t, n)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := &heldStore{store: mustOpenStore(t, filepath.Join(t.TempDir(), "cairn.db"))}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	mustImport(t, &inscribe.Importer{Store: st, Format: claudecode.Format{}}, path)
	held := st.peak - min(base, st.peak)
	t.Logf("%d blocks, a line of %d bytes: %d bytes held while it was written (%.1f a block)", n, info.Size(), held, float64(held)/n)
	if limit := 2*uint64(info.Size()) + 4<<20; held > limit {
		t.Errorf("%d bytes held while a line of %d bytes was written, want at most %d", held, info.Size(), limit)
	}
	if got, err := st.rounds.CountRounds(context.Background(), cairn.RoundFilter{SessionID: "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"}); err != nil || got != 1 {
		t.Fatalf("%d rounds (%v), want 1", got, err)
	}
}
