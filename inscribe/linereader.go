package inscribe

import (
	"bufio"
	"bytes"
	"io"
	"sync"
)

// lineReader returns lines with their terminator, however long, each in
// memory of its own that is never reused: lines are copied into shared
// blocks of up to arenaSize, so reading a file makes few allocations, not
// one per line. Its read buffer is reused from file to file ([readBuffers]).
type lineReader struct {
	src   *io.SectionReader // what br reads; a long line is read from it again
	br    *bufio.Reader
	pos   int64 // the offset in src of the next line
	arena []byte
}

const arenaSize = 1 << 20

// readBuffers holds the read buffers of files read to the end. A buffer
// of its own for each file was an allocation of 1 MiB, zeroed and faulted
// in page by page, per file of an import (1,325 for a 1 GB corpus).
var readBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, arenaSize) }}

func newLineReader(src *io.SectionReader) *lineReader {
	br := readBuffers.Get().(*bufio.Reader)
	br.Reset(src)
	return &lineReader{src: src, br: br}
}

// close gives the read buffer back for another file. The lines returned
// stay valid: none is a slice of it.
func (lr *lineReader) close() {
	lr.br.Reset(nil)
	readBuffers.Put(lr.br)
	lr.br = nil
}

// next returns the next line. A line longer than the reader's buffer is
// measured first, then read again into memory of its size: growing a
// buffer as it is read cost four times a long line's size in copies, and
// twice its size held at once.
func (lr *lineReader) next() ([]byte, error) {
	line, err := lr.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		lr.pos += int64(len(line))
		return lr.keep(line), err
	}
	n := len(line)
	for err == bufio.ErrBufferFull {
		line, err = lr.br.ReadSlice('\n')
		n += len(line)
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	buf := make([]byte, n)
	if got, rerr := lr.src.ReadAt(buf, lr.pos); got < n {
		if rerr == nil || rerr == io.EOF {
			rerr = errChanged // shorter than it was measured
		}
		return nil, rerr
	}
	lr.pos += int64(n)
	// The bytes read again must be the line measured: a line's only
	// terminator is its last byte, and one without is the file's end.
	end := n - 1
	if err == io.EOF {
		end = -1
	}
	if bytes.IndexByte(buf, '\n') != end {
		return nil, errChanged
	}
	return buf, err
}

// keep returns a copy of line that stays valid.
func (lr *lineReader) keep(line []byte) []byte {
	if len(line) > arenaSize/4 {
		return append([]byte(nil), line...)
	}
	if cap(lr.arena)-len(lr.arena) < len(line) {
		// No bigger than what is left of the file: most files are
		// smaller than an arena.
		left := lr.src.Size() - lr.pos + int64(len(line))
		lr.arena = make([]byte, 0, max(min(arenaSize, left), int64(len(line))))
	}
	start := len(lr.arena)
	lr.arena = append(lr.arena, line...)
	return lr.arena[start:len(lr.arena):len(lr.arena)]
}
