package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"slices"
	"strings"

	"cairn"

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
// query for the blocks and a [lineReader] for the texts that view their
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
// first n characters of the text it views, read in line order, so that
// the blocks of one chunk are read from one pass over it.
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
	var r lineReader
	defer r.close()
	for _, t := range views {
		text, err := r.text(ctx, tx, &t.block, unpackView(t.span.Int64))
		if err != nil {
			return err
		}
		t.block.Content = cairn.TruncateChars(text, n)
	}
	return nil
}

// A lineReader reads the texts of a few blocks that view their lines, a
// search's hits, each from a different chunk as often as not. A search
// process reads them once and exits, so a chunk is decompressed only up
// to the end of the text wanted (a 256 KiB chunk's data is most of the
// time of reading one of its lines), consecutive texts of one chunk in
// one pass, into buffers reused from chunk to chunk (fresh memory costs a
// search more in page faults than decompressing).
type lineReader struct {
	// The chunk read last: its session, lines first..last, the start of
	// each in its data, its compressed data and what is decompressed.
	session     string
	first, last int
	id          int64
	gen         int
	codec       codec
	starts      []int
	z, meta     []byte
	data        []byte
	dec         *zstd.Decoder // streams codecZstd's data; made at first use
	src         bytes.Reader
}

// text returns the text v of block b views in its line.
func (r *lineReader) text(ctx context.Context, tx *Tx, b *cairn.Block, v view) (string, error) {
	if b.SessionID != r.session || b.LineNo < r.first || b.LineNo > r.last {
		if err := r.load(ctx, tx, b.SessionID, b.LineNo); err != nil {
			return "", err
		}
	}
	i := b.LineNo - r.first
	start, end := r.starts[i], r.starts[i+1]
	at := &damage{session: r.session, generation: r.gen, first: r.first, last: r.last}
	if v.off < 0 || v.n < 0 || v.off+v.n > end-start {
		at.err = fmt.Errorf("block %d's text: bytes %d–%d of a line of %d", b.ID, v.off, v.off+v.n, end-start)
		return "", at
	}
	upto := start + v.off + v.n // no further than the text's end
	if err := r.decompress(upto); err != nil {
		at.err = fmt.Errorf("chunk %d: %w", r.id, err)
		return "", at
	}
	text, err := v.text(r.data[start:upto])
	if err != nil {
		at.err = fmt.Errorf("block %d's text: %w", b.ID, err)
		return "", at
	}
	return text, nil
}

// load reads the chunk holding line no of a session's current generation:
// its meta whole, its data compressed.
func (r *lineReader) load(ctx context.Context, tx *Tx, sessionID string, no int) error {
	stmt, err := tx.prepared(ctx, `SELECT id, generation, first_no, last_no, data, meta, codec FROM chunks
		WHERE session_id = ?1 AND generation = (SELECT generation FROM sessions WHERE id = ?1) AND first_no <= ?2
		ORDER BY first_no DESC LIMIT 1`)
	if err != nil {
		return err
	}
	rows, err := stmt.QueryContext(ctx, sessionID, no)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return cairn.Errorf(cairn.ENOTFOUND, "Session %s has no line %d.", sessionID, no)
	}
	// The blobs are the driver's copies, read in place: copying them
	// again into memory of their own would fault in fresh pages for each
	// chunk.
	var z, meta sql.RawBytes
	r.session, r.first, r.last = "", 0, -1
	if err := rows.Scan(&r.id, &r.gen, &r.first, &r.last, &z, &meta, &r.codec); err != nil {
		return err
	}
	if no > r.last {
		return cairn.Errorf(cairn.ENOTFOUND, "Session %s has no line %d.", sessionID, no)
	}
	at := &damage{session: sessionID, generation: r.gen, first: r.first, last: r.last}
	sizes, err := metaSizes(r.id, r.codec, meta, r.last-r.first+1, nil)
	if err != nil {
		at.err = err
		return at
	}
	r.starts = append(r.starts[:0], 0)
	for _, size := range sizes {
		r.starts = append(r.starts, r.starts[len(r.starts)-1]+size)
	}
	r.z = append(r.z[:0], z...)
	r.data = r.data[:0]
	if r.codec == codecZstd || r.codec == codecPacked {
		if r.dec == nil {
			if r.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<32)); err != nil {
				return err
			}
		}
		r.src.Reset(r.z)
		if err := r.dec.Reset(&r.src); err != nil {
			at.err = fmt.Errorf("chunk %d: %w", r.id, err)
			return at
		}
	}
	r.session = sessionID
	return nil
}

// decompress makes the chunk's data decompressed up to byte end at least.
func (r *lineReader) decompress(end int) error {
	if len(r.data) >= end {
		return nil
	}
	if r.codec != codecZstd && r.codec != codecPacked {
		var err error
		r.data, err = decompress(r.codec, r.z)
		if err == nil && len(r.data) != r.starts[len(r.starts)-1] {
			err = fmt.Errorf("lines cover %d of its %d bytes", r.starts[len(r.starts)-1], len(r.data))
		}
		return err
	}
	have := len(r.data)
	r.data = slices.Grow(r.data, end-have)[:end]
	_, err := io.ReadFull(r.dec, r.data[have:])
	if err != nil {
		r.data = r.data[:have]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("its data ends before byte %d", end)
		}
	}
	return err
}

// close lets the decoder go.
func (r *lineReader) close() {
	if r.dec != nil {
		r.dec.Close()
	}
}
