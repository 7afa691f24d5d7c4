package sqlite

import (
	"context"
	"fmt"

	"cairn"

	"github.com/klauspost/compress/zstd"
)

// chunkSize bounds the raw bytes in one chunk, so that reading one line
// back decompresses little more than it needs.
const chunkSize = 256 << 10

var (
	encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
)

// insertLines stores lines' raw bytes in compressed chunks and one index
// row per line. Chunks are compressed on another goroutine while the rows
// are written.
func insertLines(ctx context.Context, tx *Tx, sessionID string, gen int, lines []*cairn.Line) error {
	type chunk struct {
		lines []*cairn.Line
		data  chan []byte
	}
	var chunks []chunk
	for rest := lines; len(rest) > 0; {
		n, size := 0, 0
		for n < len(rest) && (n == 0 || size+len(rest[n].Raw) <= chunkSize) {
			size += len(rest[n].Raw)
			n++
		}
		chunks = append(chunks, chunk{rest[:n], make(chan []byte, 1)})
		rest = rest[n:]
	}
	go func() {
		var buf []byte
		for _, c := range chunks {
			buf = buf[:0]
			for _, l := range c.lines {
				buf = append(buf, l.Raw...)
			}
			c.data <- encoder.EncodeAll(buf, nil)
		}
	}()
	insChunk, err := tx.PrepareContext(ctx, `INSERT INTO chunks (session_id, data) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer insChunk.Close()
	cols := []string{"session_id", "generation", "no", "offset", "chunk_id", "chunk_off", "size", "type", "uuid", "parent_uuid", "timestamp", "round_seq", "status"}
	for _, c := range chunks {
		res, err := insChunk.ExecContext(ctx, sessionID, <-c.data)
		if err != nil {
			return err // the compressing goroutine never blocks: each channel holds its chunk
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		offs := make([]int, len(c.lines))
		for i := 1; i < len(c.lines); i++ {
			offs[i] = offs[i-1] + len(c.lines[i-1].Raw)
		}
		err = insertRows(ctx, tx, "lines", cols, len(c.lines), func(i int, dst []any) []any {
			l := c.lines[i]
			return append(dst, sessionID, gen, l.No, l.Offset, id, offs[i], len(l.Raw), l.Type, l.UUID, l.ParentUUID,
				formatTime(l.Timestamp), l.RoundSeq, string(l.Status))
		})
		if err != nil {
			return fmt.Errorf("lines %d–%d: %w", c.lines[0].No, c.lines[len(c.lines)-1].No, err)
		}
	}
	return nil
}

// chunkCache holds the chunks one read has decompressed.
type chunkCache map[int64][]byte

func (c chunkCache) raw(ctx context.Context, tx *Tx, id int64, off, size int) ([]byte, error) {
	data, ok := c[id]
	if !ok {
		var z []byte
		if err := tx.QueryRowContext(ctx, `SELECT data FROM chunks WHERE id = ?`, id).Scan(&z); err != nil {
			return nil, fmt.Errorf("chunk %d: %w", id, err)
		}
		var err error
		if data, err = decoder.DecodeAll(z, nil); err != nil {
			return nil, fmt.Errorf("chunk %d: %w", id, err)
		}
		c[id] = data
	}
	if off < 0 || off+size > len(data) {
		return nil, fmt.Errorf("chunk %d: line at %d+%d beyond its %d bytes", id, off, size, len(data))
	}
	return data[off : off+size : off+size], nil
}
