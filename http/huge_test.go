package http_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"
)

// HugeBlocks is the size of the round a page is read from, and the
// budgets of reading pages of it: the time of one, of six at once, and
// the live heap they may add, at most.
const (
	HugeBlocks      = 1_000_000
	HugePageBudget  = 2 * time.Second
	HugeSixBudget   = 6 * time.Second
	HugeHeapCeiling = 64 << 20
)

// mustHugeRound writes a session whose round 1 is a prompt and one reply
// of n text blocks, imports it into st and returns its ID.
func mustHugeRound(tb testing.TB, st *Store, n int) string {
	tb.Helper()
	id := "0b1e0000-0000-4000-8000-00000000a1a1"
	path := filepath.Join(tb.TempDir(), id+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"go"},"uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2026-03-19T10:00:00.000Z","sessionId":%q,"cwd":"/w"}`+"\n", id)
	fmt.Fprint(w, `{"parentUuid":"00000000-0000-4000-8000-000000000001","isSidechain":false,"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[`)
	filler := strings.Repeat("lorem ipsum ", 5)
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"type":"text","text":"block %d %s"}`, i, filler)
	}
	fmt.Fprintf(w, `]},"uuid":"00000000-0000-4000-8000-000000000002","timestamp":"2026-03-19T10:00:01.000Z","sessionId":%q,"cwd":"/w"}`+"\n", id)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	start := time.Now()
	if fr, problems := st.importer.ImportFile(context.Background(), path); fr.Error != "" || len(problems) > 0 {
		tb.Fatalf("import %s: %s %v", path, fr.Error, problems)
	}
	tb.Logf("imported a round of %d blocks in %v", n, time.Since(start).Round(time.Millisecond))
	return id
}

// rssPeak resets the process's peak resident size, where Linux lets it,
// and returns a function that returns how far the peak rose above the
// size at the reset (SQLite's memory is not Go's heap), or -1.
func rssPeak() func() int64 {
	if os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) != nil {
		return func() int64 { return -1 }
	}
	base := procStatus("VmRSS")
	return func() int64 {
		if base < 0 {
			return -1
		}
		return procStatus("VmHWM") - base
	}
}

// procStatus returns a field of /proc/self/status in bytes, or -1.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err == nil {
				return kb << 10
			}
		}
	}
	return -1
}

// heapPeak samples the live heap every millisecond until stop is called,
// which returns the highest sample above the heap when it started.
func heapPeak() (stop func() uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	done, result := make(chan struct{}), make(chan uint64)
	go func() {
		peak := base
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				result <- peak - base
				return
			case <-t.C:
				metrics.Read(sample)
				peak = max(peak, sample[0].Value.Uint64())
			}
		}
	}()
	return func() uint64 { close(done); return <-result }
}

// TestHugeRound: a page of a round of a million blocks is read without
// the others: served in under HugePageBudget, six at once in under
// HugeSixBudget, adding at most HugeHeapCeiling to the heap either way.
// (Before: 4.2 s and 752 MB for one, 21.9 s and 3.08 GB for six; with
// texts as views of their line, which a page decompressed and held whole,
// 0.54–1.38 s and +96–98 MB for one, 4.1 s and +101.6 MB for six; with
// the line streamed and only the page's texts kept, and no block looked
// up in staged_blocks when none is staged, 0.24–0.45 s and +2.9–5.3 MB
// for one, 1.7 s and +15.4 MB for six, on a machine shared with others.)
func TestHugeRound(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("imports a round of a million blocks; timings mean nothing under -race")
	}
	s, st := MustOpenServer(t)
	id := mustHugeRound(t, st, HugeBlocks)
	url := func(from int) string {
		return fmt.Sprintf("/api/sessions/%s/rounds/1?blocks_from=%d", id, from)
	}

	for _, c := range []struct {
		name string
		from int
	}{{"First", 0}, {"Middle", HugeBlocks / 2}, {"Last", HugeBlocks - 10}} {
		t.Run(c.name, func(t *testing.T) {
			stop, rss := heapPeak(), rssPeak()
			start := time.Now()
			var page cairnhttp.RoundResponse
			MustGet(t, s, url(c.from), &page)
			took, heap := time.Since(start), stop()
			t.Logf("page of %d blocks from %d of %d: %v, heap +%.1f MB, peak RSS +%.1f MB", len(page.Blocks), c.from, page.BlocksTotal,
				took.Round(time.Millisecond), float64(heap)/(1<<20), float64(rss())/(1<<20))
			if page.BlocksTotal != HugeBlocks+1 || page.BlocksFrom != c.from || len(page.Blocks) == 0 || len(page.Blocks) > cairnhttp.MaxPageBlocks {
				t.Fatalf("%d blocks from %d of %d", len(page.Blocks), page.BlocksFrom, page.BlocksTotal)
			}
			if want := fmt.Sprintf("block %d ", c.from-1); c.from > 0 && !strings.HasPrefix(page.Blocks[0].Content, want) {
				t.Fatalf("first block %q, want %q…", page.Blocks[0].Content, want)
			}
			if took > HugePageBudget || heap > HugeHeapCeiling {
				t.Fatalf("%v and %d MB, want under %v and %d MB", took, heap>>20, HugePageBudget, HugeHeapCeiling>>20)
			}
		})
	}

	t.Run("Six", func(t *testing.T) {
		stop, rss := heapPeak(), rssPeak()
		start := time.Now()
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var page cairnhttp.RoundResponse
				MustGet(t, s, url(i*HugeBlocks/6), &page)
			}()
		}
		wg.Wait()
		took, heap := time.Since(start), stop()
		t.Logf("six pages at once: %v, heap +%.1f MB, peak RSS +%.1f MB", took.Round(time.Millisecond), float64(heap)/(1<<20), float64(rss())/(1<<20))
		if took > HugeSixBudget || heap > HugeHeapCeiling {
			t.Fatalf("%v and %d MB, want under %v and %d MB", took, heap>>20, HugeSixBudget, HugeHeapCeiling>>20)
		}
	})
}

// TestHeavyPages: a page of a round of large blocks takes blocks while
// their content stays within MaxPageBytes, a ceiling: it stops before the
// block that would pass it (7 blocks of 256 KiB here, 1.75 MiB, as an 8th
// would make 2 MiB and 64 bytes), and six such pages at once, on a server
// that redacts (which holds each response twice), add at most
// HugeHeapCeiling to the heap: MaxHeavy of them are served at a time, and
// a page reads no block's text past the block that fills it (before: all
// 170 of a page's blocks read, 218.7 MB).
func TestHeavyPages(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("measures the heap; meaningless under -race")
	}
	st := MustOpenStore(t)
	s := cairnhttp.NewServer()
	st.Serve(s)
	s.Token = "tok"
	s.Redact, s.RedactHits = func(v string) string { return v }, func(_ string, h []*cairn.Hit) []*cairn.Hit { return h }
	MustOpen(t, s)
	id := "0b1e0000-0000-4000-8000-00000000b1b1"
	path := filepath.Join(t.TempDir(), id+".jsonl")
	const bigSize = 256 << 10
	big := strings.Repeat("x", bigSize)
	var blocks []string
	for i := range 200 {
		blocks = append(blocks, fmt.Sprintf(`{"type":"text","text":"block %d %s"}`, i, big))
	}
	data := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"go"},"uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2026-03-19T10:00:00.000Z","sessionId":%q,"cwd":"/w"}`+"\n"+
		`{"parentUuid":"00000000-0000-4000-8000-000000000001","isSidechain":false,"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[%s]},"uuid":"00000000-0000-4000-8000-000000000002","timestamp":"2026-03-19T10:00:01.000Z","sessionId":%q,"cwd":"/w"}`+"\n",
		id, strings.Join(blocks, ","), id)
	os.WriteFile(path, []byte(data), 0o644)
	blocks, data = nil, ""
	if fr, _ := st.importer.ImportFile(context.Background(), path); fr.Error != "" {
		t.Fatal(fr.Error)
	}

	stop, rss := heapPeak(), rssPeak()
	start := time.Now()
	var wg sync.WaitGroup
	sizes := make([]int, 6)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Read, not kept: the heap measured is the server's.
			req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/api/sessions/%s/rounds/1?blocks_from=%d", s.URL(), id, 1+30*i), nil)
			req.Header.Set("Authorization", "Bearer tok")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			n, err := io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != http.StatusOK || err != nil {
				t.Errorf("page %d: %d %v", i, resp.StatusCode, err)
			}
			sizes[i] = int(n)
		}()
	}
	wg.Wait()
	took, heap := time.Since(start), stop()
	t.Logf("six pages, responses of %v bytes, at once: %v, heap +%.1f MB, peak RSS +%.1f MB", sizes, took.Round(time.Millisecond), float64(heap)/(1<<20), float64(rss())/(1<<20))
	for _, n := range sizes {
		// A page's content once, and a little more (its blocks' fields and
		// steps' figures): more than MaxPageBytes less the block that did
		// not fit, less than MaxPageBytes and half.
		if n > cairnhttp.MaxPageBytes+cairnhttp.MaxPageBytes/2 || n < cairnhttp.MaxPageBytes-bigSize {
			t.Fatalf("a response of %d bytes, want between %d and %d", n, cairnhttp.MaxPageBytes-bigSize, cairnhttp.MaxPageBytes+cairnhttp.MaxPageBytes/2)
		}
	}
	if heap > HugeHeapCeiling {
		t.Fatalf("heap +%d MB, want under %d MB", heap>>20, HugeHeapCeiling>>20)
	}

	// The rule itself, on one page read whole: its content is within
	// MaxPageBytes, the next block would pass it, and the next page
	// starts at that block.
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/api/sessions/%s/rounds/1?blocks_from=1", s.URL(), id), nil)
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page cairnhttp.RoundResponse
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	content := 0
	for i, b := range page.Blocks {
		if want := fmt.Sprintf("block %d x", i); !strings.HasPrefix(b.Content, want) || b.Size != 0 {
			t.Fatalf("block %d: %.20q… cut to %d, want %q…, whole", i, b.Content, b.Size, want)
		}
		content += len(b.Content)
	}
	next := len(fmt.Sprintf("block %d ", len(page.Blocks))) + bigSize
	t.Logf("a page of %d blocks, %d bytes of content; the next block %d bytes", len(page.Blocks), content, next)
	if content > cairnhttp.MaxPageBytes || content+next <= cairnhttp.MaxPageBytes || page.NextBlocks != 1+len(page.Blocks) {
		t.Fatalf("%d blocks, %d bytes, next page at %d: want at most %d bytes, the next block of %d not fitting, the next page at %d",
			len(page.Blocks), content, page.NextBlocks, cairnhttp.MaxPageBytes, next, 1+len(page.Blocks))
	}
}
