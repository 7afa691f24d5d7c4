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
// row per line.
func insertLines(ctx context.Context, tx *Tx, sessionID string, gen int, lines []*cairn.Line) error {
	chunk, err := tx.PrepareContext(ctx, `INSERT INTO chunks (session_id, data) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer chunk.Close()
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO lines (session_id, generation, no, offset, chunk_id, chunk_off, size, type, uuid, parent_uuid, timestamp, round_seq, status)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	var buf []byte
	for len(lines) > 0 {
		n, size := 0, 0
		for n < len(lines) && (n == 0 || size+len(lines[n].Raw) <= chunkSize) {
			size += len(lines[n].Raw)
			n++
		}
		buf = buf[:0]
		for _, l := range lines[:n] {
			buf = append(buf, l.Raw...)
		}
		res, err := chunk.ExecContext(ctx, sessionID, encoder.EncodeAll(buf, nil))
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		off := 0
		for _, l := range lines[:n] {
			if _, err := stmt.ExecContext(ctx, sessionID, gen, l.No, l.Offset, id, off, len(l.Raw), l.Type, l.UUID, l.ParentUUID,
				formatTime(l.Timestamp), l.RoundSeq, string(l.Status)); err != nil {
				return fmt.Errorf("line %d: %w", l.No, err)
			}
			off += len(l.Raw)
		}
		lines = lines[n:]
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
