package inscribe

import (
	"bytes"
	"errors"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// fewestBytes returns the fewest bytes allocated by one of up to tries
// runs, each made by prepare (whose own allocations are not counted),
// stopping at the first run within limit. runtime.MemStats counts the
// whole process, not the run alone: under the race detector sync.Pool
// drops a quarter of what it is given, on purpose, and a collection
// empties it, so a run may pay for a read buffer the pool lost (one run
// in 70 of TestLineReader_Reused did, under -race, loaded or not); and a
// goroutine another test left behind may allocate meanwhile. Both only
// add, so the fewest of a few runs is the run's own cost. Like
// testing.AllocsPerRun it runs on one P, and with the collector off, so
// the pool keeps what it is given.
func fewestBytes(tries int, limit uint64, prepare func() (run func())) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	fewest := uint64(math.MaxUint64)
	var before, after runtime.MemStats
	for range tries {
		run := prepare()
		runtime.ReadMemStats(&before)
		run()
		runtime.ReadMemStats(&after)
		if fewest = min(fewest, after.TotalAlloc-before.TotalAlloc); fewest <= limit {
			break
		}
	}
	return fewest
}

// TestLineReader_Long checks that a line longer than the reader's buffer
// comes back whole, in memory of its size: growing a buffer as the line
// was read allocated four times its size.
func TestLineReader_Long(t *testing.T) {
	long := append(bytes.Repeat([]byte("x"), 8<<20), '\n')
	data := append(append([]byte("short\n"), long...), "tail"...)
	limit := uint64(len(long)) + 1<<20
	allocated := fewestBytes(5, limit, func() func() {
		lr := newLineReader(io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data))))
		if line, err := lr.next(); err != nil || string(line) != "short\n" {
			t.Fatalf("first line %q, %v", line, err)
		}
		return func() {
			defer lr.close()
			line, err := lr.next()
			if err != nil || !bytes.Equal(line, long) {
				t.Fatalf("long line of %d bytes (%v), want %d", len(line), err, len(long))
			}
			if line, err := lr.next(); err != io.EOF || string(line) != "tail" {
				t.Errorf("last line %q, %v; want \"tail\", EOF", line, err)
			}
		}
	})
	if allocated > limit {
		t.Errorf("%d bytes allocated to read a line of %d", allocated, len(long))
	}
}

// changing returns data on a first read of each offset, then what change
// makes of it: a file rewritten between two reads.
type changing struct {
	data   []byte
	change func([]byte) []byte
	reads  map[int64]int
}

func (c *changing) ReadAt(p []byte, off int64) (int, error) {
	src := c.data
	if c.reads[off]++; c.reads[off] > 1 {
		src = c.change(bytes.Clone(c.data))
	}
	if off >= int64(len(src)) {
		return 0, io.EOF
	}
	n := copy(p, src[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestLineReader_Changed checks that a long line whose bytes changed
// between its measure and its read is refused, not returned cut or
// joined to the next.
func TestLineReader_Changed(t *testing.T) {
	data := append(bytes.Repeat([]byte("x"), 3<<20), "\nnext\n"...)
	for name, change := range map[string]func([]byte) []byte{
		"newline inside": func(b []byte) []byte { b[1<<20] = '\n'; return b },
		"newline gone":   func(b []byte) []byte { b[3<<20] = 'y'; return b },
		"truncated":      func(b []byte) []byte { return b[:2<<20] },
	} {
		src := &changing{data: data, change: change, reads: map[int64]int{}}
		lr := newLineReader(io.NewSectionReader(src, 0, int64(len(data))))
		if line, err := lr.next(); !errors.Is(err, errChanged) {
			t.Errorf("%s: line of %d bytes, %v; want errChanged", name, len(line), err)
		}
	}
}

// TestLineReader_Reused: a reader's buffer goes to the next file once
// closed, so reading many small files does not allocate a buffer each,
// and the lines of a file already read stay as they were.
func TestLineReader_Reused(t *testing.T) {
	read := func(data string) (lines []string, kept [][]byte) {
		lr := newLineReader(io.NewSectionReader(bytes.NewReader([]byte(data)), 0, int64(len(data))))
		defer lr.close()
		for {
			line, err := lr.next()
			if len(line) > 0 {
				lines, kept = append(lines, string(line)), append(kept, line)
			}
			if err == io.EOF {
				return lines, kept
			} else if err != nil {
				t.Fatal(err)
			}
		}
	}
	want, first := read("one\ntwo\n")
	read("three\nfour\n")
	for i := range want {
		if string(first[i]) != want[i] {
			t.Fatalf("line %d of the first file became %q after the second was read, want %q", i+1, first[i], want[i])
		}
	}
	const files = 20
	allocated := fewestBytes(5, files*arenaSize/2, func() func() {
		return func() {
			for range files {
				read("a line\nanother\n")
			}
		}
	})
	if perFile := allocated / files; perFile > arenaSize/2 {
		t.Errorf("%d bytes allocated to read a file of two lines", perFile)
	}
}
