package sqlite

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"

	"github.com/klauspost/compress/zstd"
)

// A pageReader reads the texts of a page's viewed blocks, in round order,
// from their lines without holding the lines: a chunk of streamed codec
// not in the DB's cache is decompressed as a stream, the bytes before a
// text skipped, and of each text only its first limit bytes kept (its
// full length counted). A page of a round whose one line is tens of MB
// (a message of a million blocks) held that line whole: 96 MB of heap a
// page, for 85 KB of text.
type pageReader struct {
	session string
	gen     int
	limit   int // bytes of a text kept; 0 keeps all of it

	id          int64 // the chunk read, 0 for none
	first, last int
	codec       codec
	z, meta     []byte
	starts      []int  // where each of its lines starts, and where the last ends
	sizes       []int  // scratch for metaSizes
	whole       []byte // its data, when read whole (cached, or of a codec not streamed)
	pos         int    // bytes of its data the decoder has given
	dec         *zstd.Decoder
	src         bytes.Reader
	buf, scr    []byte
}

// spanWhole is the longest view a pageReader reads whole and decodes as
// every other reader does; a longer one is unquoted spanWindow bytes at a
// time, so that a page holds a window of it, not the text.
var (
	spanWhole  = 1 << 20 // variables for tests
	spanWindow = 64 << 10
)

// close lets the decoder go.
func (p *pageReader) close() {
	if p.dec != nil {
		p.dec.Close()
	}
}

// text returns the first p.limit bytes (and up to a character more) of
// the text that line no's span views, and its full length in bytes.
func (p *pageReader) text(ctx context.Context, tx *Tx, blockID int64, no int, span int64) (string, int, error) {
	if p.id == 0 || no < p.first || no > p.last {
		if err := p.fetch(ctx, tx, no); err != nil {
			return "", 0, err
		}
	}
	at := &cairn.Damaged{Session: p.session, Generation: p.gen, First: p.first, Last: p.last}
	v := unpackView(span)
	i := no - p.first
	start, end := p.starts[i], p.starts[i+1]
	if v.off < 0 || v.n < 0 || v.off+v.n > end-start {
		at.Err = fmt.Errorf("block %d's text: bytes %d–%d of a line of %d", blockID, v.off, v.off+v.n, end-start)
		return "", 0, at
	}
	text, size, err := p.read(start+v.off, v)
	if err != nil {
		at.Err = fmt.Errorf("chunk %d, block %d's text: %w", p.id, blockID, err)
		return "", 0, at
	}
	return text, size, nil
}

// fetch makes the chunk holding line no the one read.
func (p *pageReader) fetch(ctx context.Context, tx *Tx, no int) error {
	stmt, err := tx.prepared(ctx, `SELECT id, generation, first_no, last_no, data, meta, codec FROM chunks
		WHERE session_id = ?1 AND generation = (SELECT generation FROM sessions WHERE id = ?1) AND first_no <= ?2
		ORDER BY first_no DESC LIMIT 1`)
	if err != nil {
		return err
	}
	rows, err := stmt.QueryContext(ctx, p.session, no)
	if err != nil {
		return err
	}
	defer rows.Close()
	p.id = 0
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return &cairn.Damaged{Session: p.session, Generation: p.gen, First: no, Last: no, Err: fmt.Errorf("line %d is not stored", no)}
	}
	var id int64
	if err := rows.Scan(&id, &p.gen, &p.first, &p.last, &p.z, &p.meta, &p.codec); err != nil {
		return err
	}
	at := &cairn.Damaged{Session: p.session, Generation: p.gen, First: p.first, Last: p.last}
	if no > p.last {
		at.First, at.Last, at.Err = no, no, fmt.Errorf("line %d is not stored", no)
		return at
	}
	if p.sizes, err = metaSizes(id, p.codec, p.meta, p.last-p.first+1, p.sizes[:0]); err != nil {
		at.Err = err
		return at
	}
	p.starts = append(p.starts[:0], 0)
	for _, size := range p.sizes {
		p.starts = append(p.starts, p.starts[len(p.starts)-1]+size)
	}
	p.whole = nil
	if data, ok := tx.db.chunks.get(id); ok {
		p.whole = data
	} else if !streamed(p.codec) {
		if p.whole, err = decompress(p.codec, p.z); err != nil {
			at.Err = fmt.Errorf("chunk %d: %w", id, err)
			return at
		}
	}
	if p.whole != nil && len(p.whole) != p.starts[len(p.starts)-1] {
		at.Err = fmt.Errorf("chunk %d: lines cover %d of its %d bytes", id, p.starts[len(p.starts)-1], len(p.whole))
		return at
	}
	p.id = id
	return p.rewind()
}

// rewind starts the chunk's stream over from its first byte.
func (p *pageReader) rewind() (err error) {
	p.pos = 0
	if p.whole != nil {
		return nil
	}
	if p.dec == nil {
		if p.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<32)); err != nil {
			return err
		}
	}
	p.src.Reset(p.z)
	return p.dec.Reset(&p.src)
}

// next returns the next n bytes of the chunk's data from byte off, valid
// until the next call.
func (p *pageReader) next(off, n int) ([]byte, error) {
	if p.whole != nil {
		if off+n > len(p.whole) {
			return nil, fmt.Errorf("its data ends before byte %d", off+n)
		}
		p.pos = off + n
		return p.whole[off : off+n], nil
	}
	if off < p.pos {
		if err := p.rewind(); err != nil {
			return nil, err
		}
	}
	if skip := int64(off - p.pos); skip > 0 {
		got, err := io.CopyN(io.Discard, p.dec, skip)
		p.pos += int(got)
		if err != nil {
			return nil, ended(err, off)
		}
	}
	p.buf = slices.Grow(p.buf[:0], n)[:n]
	got, err := io.ReadFull(p.dec, p.buf)
	p.pos += got
	if err != nil {
		return nil, ended(err, off+n)
	}
	return p.buf, nil
}

func ended(err error, end int) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("its data ends before byte %d", end)
	}
	return err
}

// read returns the kept part of the text v views at byte off of the
// chunk's data, and its full length.
func (p *pageReader) read(off int, v view) (string, int, error) {
	if v.n <= spanWhole {
		raw, err := p.next(off, v.n)
		if err != nil {
			return "", 0, err
		}
		text, err := view{n: v.n, quoted: v.quoted}.text(raw)
		if err != nil {
			return "", 0, err
		}
		return p.keep(nil, text), len(text), nil
	}
	if !v.quoted {
		// The text is the bytes: keep the first, skip the others.
		raw, err := p.next(off, min(v.n, p.keepBytes()))
		if err != nil {
			return "", 0, err
		}
		kept := string(raw)
		if _, err := p.next(off+v.n-1, 1); err != nil {
			return "", 0, err
		}
		return kept, v.n, nil
	}
	return p.unquoteStream(off, v.n)
}

// keepBytes is how many bytes of a text a page keeps: its limit and a
// character more, so that [cairn.BlockPage.Cut] finds where a character
// starts.
func (p *pageReader) keepBytes() int {
	if p.limit <= 0 {
		return maxView
	}
	return p.limit + utf8.UTFMax
}

// keep appends what is kept of text to kept and returns it, a copy.
func (p *pageReader) keep(kept []byte, text string) string {
	k := p.keepBytes() - len(kept)
	if k <= 0 {
		return string(kept)
	}
	return string(append(kept, text[:min(k, len(text))]...))
}

// unquoteStream unquotes the JSON string of n bytes at byte off of the
// chunk's data a window at a time, each cut where no escape, surrogate
// pair or character is split, so that its windows unquote to its value.
func (p *pageReader) unquoteStream(off, n int) (string, int, error) {
	q, err := p.next(off, 1)
	if err != nil {
		return "", 0, err
	}
	if q[0] != '"' {
		return "", 0, fmt.Errorf("bytes %d–%d are not a JSON string", off, off+n)
	}
	var kept, pend []byte
	size := 0
	body, at := n-2, off+1
	for read := 0; read < body || len(pend) > 0; {
		w := min(spanWindow, body-read)
		if w > 0 {
			b, err := p.next(at+read, w)
			if err != nil {
				return "", 0, err
			}
			pend = append(pend, b...)
			read += w
		}
		cut := len(pend)
		if read < body {
			cut = safeCut(pend)
		}
		if cut == 0 {
			continue
		}
		p.scr = append(append(append(p.scr[:0], '"'), pend[:cut]...), '"')
		text, err := unquote(p.scr)
		if err != nil {
			return "", 0, fmt.Errorf("bytes %d–%d: %w", off, off+n, err)
		}
		size += len(text)
		if len(kept) < p.keepBytes() {
			kept = append(kept, text[:min(p.keepBytes()-len(kept), len(text))]...)
		}
		pend = append(pend[:0], pend[cut:]...)
	}
	q, err = p.next(off+n-1, 1)
	if err != nil {
		return "", 0, err
	}
	if q[0] != '"' {
		return "", 0, fmt.Errorf("bytes %d–%d are not a JSON string", off, off+n)
	}
	return string(kept), size, nil
}

// safeCut returns the longest prefix of b, a part of a JSON string's
// body, that ends where neither an escape, a surrogate pair of escapes
// nor a UTF-8 character is cut in two.
func safeCut(b []byte) int {
	i := 0
	for {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			break
		}
		j += i
		if j+2 > len(b) {
			return j
		}
		if b[j+1] != 'u' {
			i = j + 2
			continue
		}
		if j+6 > len(b) {
			return j
		}
		r, ok := hex4(b[j+2:])
		i = j + 6
		if ok && utf16.IsSurrogate(r) && r < 0xdc00 {
			// A high surrogate is read with the escape after it.
			if j+12 > len(b) {
				return j
			}
			if b[j+6] == '\\' && b[j+7] == 'u' {
				i = j + 12
			}
		}
	}
	cut := len(b)
	for k := len(b) - 1; k >= 0 && k >= len(b)-utf8.UTFMax; k-- {
		if utf8.RuneStart(b[k]) {
			if !utf8.FullRune(b[k:]) {
				cut = k
			}
			break
		}
	}
	if cut < i {
		return i
	}
	return cut
}
