package sqlite

import (
	"context"
	"fmt"
	"sync"

	"github.com/cairn-dev/cairn"
)

// A rawStream hands the raw bytes of a range of a session's lines,
// decompressing its chunks ahead on every core. Its chunks are read when
// it opens, so that the transaction is free for the next query (the
// blocks that view those lines) while they decompress: show of a 3 MB
// session read its blocks, then decompressed their lines, then cut the
// blocks' texts out of them, one after the other (2.1, 0.8 and 1.2 ms).
// At most streamAhead bytes of lines are decompressed and not yet handed,
// into buffers reused for the next chunks and not kept, so that reading a
// long session's block texts holds a few chunks' raw bytes at a time, not
// all of them beside the texts (show of a 3 MB session, which read every
// chunk into fresh memory, took 2,650 page faults and 20.9 ms of CPU, then
// 2,030 and 16.6 ms).
type rawStream struct {
	session  string
	gen      int
	from, to int
	chunks   []*rawChunk

	mu     sync.Mutex
	room   *sync.Cond // signalled as handed chunks give back their bytes
	ahead  int        // bytes decompressed and not yet handed
	free   [][]byte   // buffers handed back
	quit   bool
	wg     sync.WaitGroup
	closed bool
}

// A rawChunk is one stored chunk, decompressed once done is closed.
type rawChunk struct {
	id          int64
	first, last int
	z           []byte
	codec       codec
	sizes       []int  // its lines' sizes, from its meta
	size        int    // their sum
	cached      bool   // data is the DB's cache's, not decompressed here
	counted     bool   // its size is counted in its stream's ahead
	data        []byte // from the DB's cache, or decompressed into buf
	buf         []byte
	err         error // its meta or its data does not read
	done        chan struct{}
}

// streamAhead bounds the bytes of lines a rawStream holds decompressed
// and not yet handed (but for one chunk larger than that).
var streamAhead = 8 << 20

// openRaw reads the chunks that hold lines from..to of a session's
// current generation and starts decompressing them; the stream must be
// closed.
func openRaw(ctx context.Context, tx *Tx, sessionID string, from, to int) (*rawStream, error) {
	s := &rawStream{session: sessionID, from: from, to: to}
	s.room = sync.NewCond(&s.mu)
	if err := tx.QueryRowContext(ctx, `SELECT generation FROM sessions WHERE id = ?`, sessionID).Scan(&s.gen); err != nil {
		return nil, notFound(err, "No session %q.", sessionID)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, first_no, last_no, data, meta, codec FROM chunks
		WHERE session_id = ?1 AND generation = ?2 AND last_no >= ?3 AND first_no <= ?4
			AND first_no >= COALESCE((SELECT MAX(first_no) FROM chunks
				WHERE session_id = ?1 AND generation = ?2 AND first_no <= ?3), 0)
		ORDER BY first_no`, sessionID, s.gen, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		c := &rawChunk{done: make(chan struct{})}
		var meta []byte
		if err := rows.Scan(&c.id, &c.first, &c.last, &c.z, &meta, &c.codec); err != nil {
			return nil, err
		}
		c.sizes, c.err = metaSizes(c.id, c.codec, meta, c.last-c.first+1, nil)
		for _, n := range c.sizes {
			c.size += n
		}
		if data, ok := tx.db.chunks.get(c.id); ok {
			c.data, c.cached = data, true
		}
		if c.cached || c.err != nil {
			close(c.done)
		}
		s.chunks = append(s.chunks, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s.start()
	return s, nil
}

// start decompresses the chunks on as many goroutines as there are cores,
// in order, never more than streamAhead bytes ahead of what is handed.
func (s *rawStream) start() {
	jobs := make(chan *rawChunk)
	s.wg.Go(func() {
		defer close(jobs)
		for _, c := range s.chunks {
			if c.cached || c.err != nil {
				continue
			}
			s.mu.Lock()
			for !s.quit && s.ahead > 0 && s.ahead+c.size > streamAhead {
				s.room.Wait()
			}
			if s.quit {
				s.mu.Unlock()
				return
			}
			s.ahead += c.size
			c.counted = true
			s.mu.Unlock()
			jobs <- c
		}
	})
	for range min(cores(), len(s.chunks)) {
		s.wg.Go(func() {
			for c := range jobs {
				s.decompress(c)
			}
		})
	}
}

func (s *rawStream) decompress(c *rawChunk) {
	defer close(c.done)
	switch c.codec {
	case codecZstd, codecPacked:
		s.mu.Lock()
		if n := len(s.free); n > 0 {
			c.buf, s.free = s.free[n-1], s.free[:n-1]
		}
		s.mu.Unlock()
		c.buf, c.err = zstdDecoder().DecodeAll(c.z, c.buf[:0])
		c.data = c.buf
	default:
		c.data, c.err = decompress(c.codec, c.z)
	}
	if c.err != nil {
		c.err = fmt.Errorf("chunk %d: %w", c.id, c.err)
	}
}

// handed gives back the bytes of c, whose lines were handed.
func (s *rawStream) handed(c *rawChunk) {
	if !c.counted {
		return
	}
	s.mu.Lock()
	if c.buf != nil {
		s.free = append(s.free, c.buf)
	}
	s.ahead -= c.size
	s.mu.Unlock()
	s.room.Signal()
	c.buf, c.data = nil, nil
}

// each calls fn with the number and raw bytes of each line from..to; the
// bytes are fn's for the call only. Lines of different chunks are handed
// on as many goroutines as there are cores, in no set order: fn must be
// safe to call so for different lines. A chunk that does not decompress,
// or whose lines do not fit it, is a [cairn.Damaged] (the first such
// chunk's, if there are more), and fn's first error (in line order) is
// returned.
func (s *rawStream) each(fn func(no int, raw []byte) error) error {
	errs := make([]error, len(s.chunks))
	parallel(len(s.chunks), func(i int) {
		c := s.chunks[i]
		<-c.done
		errs[i] = s.lines(c, fn)
		s.handed(c)
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// lines calls fn with each line of c within the stream's range.
func (s *rawStream) lines(c *rawChunk, fn func(no int, raw []byte) error) error {
	at := &cairn.Damaged{Session: s.session, Generation: s.gen, First: c.first, Last: c.last}
	if c.err != nil { // its meta's (metaSizes names the chunk) or its data's
		at.Err = c.err
		return at
	}
	off := 0
	for k, size := range c.sizes {
		if off+size > len(c.data) {
			at.Err = fmt.Errorf("chunk %d: meta of line %d does not fit its %d bytes", c.id, c.first+k, len(c.data))
			return at
		}
		if no := c.first + k; no >= s.from && no <= s.to {
			if err := fn(no, c.data[off:off+size:off+size]); err != nil {
				return err
			}
		}
		off += size
	}
	return nil
}

// close stops the stream's decompression and waits for its goroutines.
func (s *rawStream) close() {
	if s == nil || s.closed {
		return
	}
	s.closed = true
	s.mu.Lock()
	s.quit = true
	s.mu.Unlock()
	s.room.Broadcast()
	s.wg.Wait()
}
