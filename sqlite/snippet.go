package sqlite

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn"

	"github.com/klauspost/compress/zstd"
)

// A blockText is a block's text as a search reads it: the first
// characters of the text a block keeps, or the view of its line it has
// instead (span).
type blockText struct {
	block cairn.Block // ID, SessionID, LineNo and Content
	span  sql.NullInt64
}

// blockTexts reads the first n characters of each block's text, in one
// query for the blocks and [readTexts] for the texts that view their
// lines.
func blockTexts(ctx context.Context, tx *Tx, ids []int64, n int) (map[int64]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := []any{n}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := tx.QueryContext(ctx, `SELECT b.id, n.session_id, b.line_no, substr(b.content, 1, ?), b.span FROM blocks b JOIN session_nums n ON n.num = b.session_num WHERE b.id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var read []*blockText
	for rows.Next() {
		t := &blockText{}
		if err := rows.Scan(&t.block.ID, &t.block.SessionID, &t.block.LineNo, &t.block.Content, &t.span); err != nil {
			return nil, err
		}
		read = append(read, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if err := readTexts(ctx, tx, read, n); err != nil {
		return nil, err
	}
	texts := make(map[int64]string, len(read))
	for _, t := range read {
		texts[t.block.ID] = t.block.Content
	}
	return texts, nil
}

// readTexts sets the Content of each of texts that views its line to the
// first n characters of the text it views. The texts are read in line
// order, the texts of one chunk from one pass over it: the transaction's
// connection reads each chunk in turn, and, where there is a core to
// spare, other goroutines decompress the chunks already read meanwhile
// (decompressing is half of the time of reading a search's texts).
func readTexts(ctx context.Context, tx *Tx, texts []*blockText, n int) error {
	var views []*blockText
	for _, t := range texts {
		if t.span.Valid {
			views = append(views, t)
		}
	}
	slices.SortFunc(views, func(a, b *blockText) int {
		if c := strings.Compare(a.block.SessionID, b.block.SessionID); c != 0 {
			return c
		}
		return a.block.LineNo - b.block.LineNo
	})
	workers := min(cores()-1, snippetWorkers)
	if workers < 1 || len(views) < 2 {
		var d chunkDecoder
		defer d.close()
		var c chunkRead
		for len(views) > 0 {
			var err error
			if views, err = c.fetch(ctx, tx, views); err != nil {
				return err
			}
			if err := d.decode(&c, n); err != nil {
				return err
			}
		}
		return nil
	}
	// Chunks go round between the connection and the decoders, so that
	// their buffers are reused: fresh memory costs a short process more
	// in page faults than the copies.
	free := make(chan *chunkRead, workers+2)
	for range cap(free) {
		free <- &chunkRead{}
	}
	read := make(chan *chunkRead, workers+2)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	for range workers {
		wg.Go(func() {
			var d chunkDecoder
			defer d.close()
			for c := range read {
				if err := d.decode(c, n); err != nil {
					mu.Lock()
					failed = cmp.Or(failed, err)
					mu.Unlock()
				}
				free <- c
			}
		})
	}
	var err error
	for len(views) > 0 && err == nil {
		c := <-free
		if views, err = c.fetch(ctx, tx, views); err == nil {
			read <- c
		}
	}
	close(read)
	wg.Wait()
	return cmp.Or(err, failed)
}

// snippetWorkers bounds the goroutines that decompress a search's chunks.
const snippetWorkers = 3

// A chunkRead is a chunk as a search reads it for texts that view its
// lines: its lines first..last of a session's generation, its data and
// meta still compressed (copied out of the row), and the texts it holds.
type chunkRead struct {
	session     string
	id          int64
	gen         int
	first, last int
	codec       codec
	z, meta     []byte
	texts       []*blockText
}

// fetch reads the chunk holding the line of views[0], with the texts
// among views (in line order) that it holds, and returns the views left.
func (c *chunkRead) fetch(ctx context.Context, tx *Tx, views []*blockText) ([]*blockText, error) {
	session, no := views[0].block.SessionID, views[0].block.LineNo
	stmt, err := tx.prepared(ctx, `SELECT id, generation, first_no, last_no, data, meta, codec FROM chunks
		WHERE session_id = ?1 AND generation = (SELECT generation FROM sessions WHERE id = ?1) AND first_no <= ?2
		ORDER BY first_no DESC LIMIT 1`)
	if err != nil {
		return nil, err
	}
	rows, err := stmt.QueryContext(ctx, session, no)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, cairn.Errorf(cairn.ENOTFOUND, "Session %s has no line %d.", session, no)
	}
	// The blobs are read in place, the driver's copies, and copied into
	// the chunk's own buffers, which the chunks of a search reuse.
	var z, meta sql.RawBytes
	if err := rows.Scan(&c.id, &c.gen, &c.first, &c.last, &z, &meta, &c.codec); err != nil {
		return nil, err
	}
	if no > c.last {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "Session %s has no line %d.", session, no)
	}
	c.session = session
	c.z, c.meta = append(c.z[:0], z...), append(c.meta[:0], meta...)
	i := 0
	for i < len(views) && views[i].block.SessionID == session && views[i].block.LineNo <= c.last {
		i++
	}
	c.texts = append(c.texts[:0], views[:i]...)
	return views[i:], nil
}

// A chunkDecoder decompresses chunks for the texts they hold: each only
// up to the end of its last text (a 256 KiB chunk's data is most of the
// time of reading one of its lines), into buffers reused from chunk to
// chunk.
type chunkDecoder struct {
	data   []byte
	sizes  []int         // the size of each line of the chunk
	starts []int         // where each line of the chunk starts in data, and where the last ends
	dec    *zstd.Decoder // streams codecZstd's data; made at first use
	src    bytes.Reader
}

// decode sets each of c's texts to the first n characters of the text it
// views.
func (d *chunkDecoder) decode(c *chunkRead, n int) (err error) {
	at := &cairn.Damaged{Session: c.session, Generation: c.gen, First: c.first, Last: c.last}
	if at.Err = d.lineStarts(c); at.Err != nil {
		return at
	}
	d.data = d.data[:0]
	if streamed(c.codec) {
		if d.dec == nil {
			if d.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<32)); err != nil {
				return err
			}
		}
		d.src.Reset(c.z)
		if err := d.dec.Reset(&d.src); err != nil {
			at.Err = fmt.Errorf("chunk %d: %w", c.id, err)
			return at
		}
	}
	for _, t := range c.texts {
		v := unpackView(t.span.Int64)
		i := t.block.LineNo - c.first
		start, end := d.starts[i], d.starts[i+1]
		if v.off < 0 || v.n < 0 || v.off+v.n > end-start {
			at.Err = fmt.Errorf("block %d's text: bytes %d–%d of a line of %d", t.block.ID, v.off, v.off+v.n, end-start)
			return at
		}
		upto := start + v.off + v.n // no further than the text's end
		if err := d.decompress(c, upto); err != nil {
			at.Err = fmt.Errorf("chunk %d: %w", c.id, err)
			return at
		}
		text, err := v.text(d.data[start:upto])
		if err != nil {
			at.Err = fmt.Errorf("block %d's text: %w", t.block.ID, err)
			return at
		}
		t.block.Content = cairn.TruncateChars(text, n)
	}
	return nil
}

// lineStarts sets d.starts to where each line of c starts in its data,
// and where the last one ends, from the line sizes in its meta.
func (d *chunkDecoder) lineStarts(c *chunkRead) (err error) {
	if d.sizes, err = metaSizes(c.id, c.codec, c.meta, c.last-c.first+1, d.sizes[:0]); err != nil {
		return err
	}
	d.starts = append(d.starts[:0], 0)
	for _, size := range d.sizes {
		d.starts = append(d.starts, d.starts[len(d.starts)-1]+size)
	}
	return nil
}

// streamed reports whether data of codec c is decompressed as a stream,
// as far as a text needs: zstd's is (codecZstd, codecPacked); S2's, of
// older stores, is read whole.
func streamed(c codec) bool { return c == codecZstd || c == codecPacked }

// decompress makes c's data decompressed up to byte end at least.
func (d *chunkDecoder) decompress(c *chunkRead, end int) error {
	if len(d.data) >= end {
		return nil
	}
	if !streamed(c.codec) {
		var err error
		d.data, err = decompress(c.codec, c.z)
		if err == nil && len(d.data) != d.starts[len(d.starts)-1] {
			err = fmt.Errorf("lines cover %d of its %d bytes", d.starts[len(d.starts)-1], len(d.data))
		}
		return err
	}
	have := len(d.data)
	d.data = slices.Grow(d.data, end-have)[:end]
	_, err := io.ReadFull(d.dec, d.data[have:])
	if err != nil {
		d.data = d.data[:have]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("its data ends before byte %d", end)
		}
	}
	return err
}

// close lets the decoder go.
func (d *chunkDecoder) close() {
	if d.dec != nil {
		d.dec.Close()
	}
}
