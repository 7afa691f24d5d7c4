package sqlite

import (
	"context"
	"fmt"

	"cairn"

	"github.com/go-json-experiment/json"
	"github.com/klauspost/compress/s2"
)

// chunkSize bounds the raw bytes in one chunk, so that reading one line
// back decompresses little more than it needs.
const chunkSize = 256 << 10

// compress and decompress are S2 (a faster Snappy): transcripts shrink
// about fivefold at over a gigabyte a second, where zstd's fastest level
// shrinks them sevenfold at a third of the speed — and import speed is
// bounded by CPU.
func compress(b []byte) []byte { return s2.Encode(nil, b) }

func decompress(b []byte) ([]byte, error) { return s2.Decode(nil, b) }

// lineMeta is what a chunk's meta holds of each line. Keys are short:
// the meta of a million lines is read whenever their chunks are.
type lineMeta struct {
	Size      int              `json:"n"`
	Offset    int64            `json:"o"`
	Type      string           `json:"t,omitempty"`
	UUID      string           `json:"u,omitempty"`
	Parent    string           `json:"p,omitempty"`
	Timestamp string           `json:"s,omitempty"`
	Round     int              `json:"r"`
	Status    cairn.LineStatus `json:"x"`
}

// encodeMeta returns the compressed meta of lines.
func encodeMeta(lines []*cairn.Line) []byte {
	metas := make([]lineMeta, len(lines))
	for i, l := range lines {
		metas[i] = lineMeta{len(l.Raw), l.Offset, l.Type, l.UUID, l.ParentUUID, formatTime(l.Timestamp), l.RoundSeq, l.Status}
	}
	buf, _ := json.Marshal(metas) // only strings and numbers: cannot fail
	return compress(buf)
}

// decodeMeta fills lines (SessionID and No set) from a chunk's raw data
// and meta.
func decodeMeta(id int64, data, meta []byte, lines []*cairn.Line) error {
	buf, err := decompress(meta)
	if err != nil {
		return fmt.Errorf("chunk %d meta: %w", id, err)
	}
	metas := make([]lineMeta, 0, len(lines))
	if err := json.Unmarshal(buf, &metas); err != nil || len(metas) != len(lines) {
		return fmt.Errorf("chunk %d meta: %d entries for %d lines (%v)", id, len(metas), len(lines), err)
	}
	off := 0
	for i, l := range lines {
		m := metas[i]
		if off+m.Size > len(data) {
			return fmt.Errorf("chunk %d: line %d at %d+%d beyond its %d bytes", id, l.No, off, m.Size, len(data))
		}
		l.Raw = data[off : off+m.Size : off+m.Size]
		l.Offset, l.Type, l.UUID, l.ParentUUID, l.RoundSeq, l.Status = m.Offset, m.Type, m.UUID, m.Parent, m.Round, m.Status
		l.Timestamp = parseTime(m.Timestamp)
		off += m.Size
	}
	if off != len(data) {
		return fmt.Errorf("chunk %d: lines cover %d of its %d bytes", id, off, len(data))
	}
	return nil
}

// splitChunks cuts lines into runs of at most chunkSize raw bytes (a
// longer line is a chunk of its own).
func splitChunks(lines []*cairn.Line) [][]*cairn.Line {
	var out [][]*cairn.Line
	for len(lines) > 0 {
		n, size := 0, 0
		for n < len(lines) && (n == 0 || size+len(lines[n].Raw) <= chunkSize) {
			size += len(lines[n].Raw)
			n++
		}
		out = append(out, lines[:n])
		lines = lines[n:]
	}
	return out
}

// A chunk is consecutive lines ready to store: raw bytes and meta,
// compressed.
type chunk struct {
	first, last int
	data, meta  []byte
}

// makeChunks compresses lines into chunks. It runs before the write
// transaction begins, so that one import compresses while another writes.
func makeChunks(lines []*cairn.Line) []chunk {
	var out []chunk
	var buf []byte
	for _, c := range splitChunks(lines) {
		buf = buf[:0]
		for _, l := range c {
			buf = append(buf, l.Raw...)
		}
		out = append(out, chunk{c[0].No, c[len(c)-1].No, compress(buf), encodeMeta(c)})
	}
	return out
}

// insertChunks stores chunks of a session's generation.
func insertChunks(ctx context.Context, tx *Tx, sessionID string, gen int, chunks []chunk) error {
	for _, c := range chunks {
		stmt, err := tx.prepared(ctx, `INSERT INTO chunks (session_id, generation, first_no, last_no, data, meta) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		if _, err := stmt.ExecContext(ctx, sessionID, gen, c.first, c.last, c.data, c.meta); err != nil {
			return fmt.Errorf("lines %d–%d: %w", c.first, c.last, err)
		}
	}
	return nil
}

// findLines returns lines from..to (0: no bound) of a session's current
// generation.
func findLines(ctx context.Context, tx *Tx, sessionID string, from, to int) ([]*cairn.Line, error) {
	var gen int
	if err := tx.QueryRowContext(ctx, `SELECT generation FROM sessions WHERE id = ?`, sessionID).Scan(&gen); err != nil {
		return nil, notFound(err, "No session %q.", sessionID)
	}
	if to <= 0 {
		to = 1<<62 - 1
	}
	return readChunks(ctx, tx, sessionID, from, to,
		`WHERE session_id = ? AND generation = ? AND last_no >= ? AND first_no <= ? ORDER BY first_no`, sessionID, gen, from, to)
}

// findAllLines returns every line of every generation of a session.
func findAllLines(ctx context.Context, tx *Tx, sessionID string) ([]*cairn.Line, error) {
	return readChunks(ctx, tx, sessionID, 0, 1<<62-1, `WHERE session_id = ? ORDER BY generation, first_no`, sessionID)
}

// readChunks returns the lines numbered from..to of the chunks tail selects.
func readChunks(ctx context.Context, tx *Tx, sessionID string, from, to int, tail string, args ...any) ([]*cairn.Line, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, generation, first_no, last_no, data, meta FROM chunks `+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Line
	for rows.Next() {
		var id int64
		var gen, first, last int
		var z, meta []byte
		if err := rows.Scan(&id, &gen, &first, &last, &z, &meta); err != nil {
			return nil, err
		}
		data, err := decompress(z)
		if err != nil {
			return nil, fmt.Errorf("chunk %d: %w", id, err)
		}
		lines := make([]*cairn.Line, last-first+1)
		for i := range lines {
			lines[i] = &cairn.Line{SessionID: sessionID, Generation: gen, No: first + i}
		}
		if err := decodeMeta(id, data, meta, lines); err != nil {
			return nil, err
		}
		for _, l := range lines {
			if l.No >= from && l.No <= to {
				out = append(out, l)
			}
		}
	}
	return out, rows.Err()
}

// updateLineMeta rewrites the meta of the chunks holding lines (a whole
// generation, in order), after reindex parsed them again.
func updateLineMeta(ctx context.Context, tx *Tx, sessionID string, lines []*cairn.Line) error {
	byNo := make(map[int]*cairn.Line, len(lines))
	for _, l := range lines {
		byNo[l.No] = l
	}
	rows, err := tx.QueryContext(ctx, `
		SELECT id, first_no, last_no FROM chunks WHERE session_id = ? AND generation = (SELECT generation FROM sessions WHERE id = ?)`,
		sessionID, sessionID)
	if err != nil {
		return err
	}
	type span struct {
		id          int64
		first, last int
	}
	var spans []span
	for rows.Next() {
		var s span
		if err := rows.Scan(&s.id, &s.first, &s.last); err != nil {
			rows.Close()
			return err
		}
		spans = append(spans, s)
	}
	rows.Close()
	for _, s := range spans {
		part := make([]*cairn.Line, 0, s.last-s.first+1)
		for no := s.first; no <= s.last; no++ {
			l, ok := byNo[no]
			if !ok {
				return fmt.Errorf("reindex %s: line %d missing", sessionID, no)
			}
			part = append(part, l)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE chunks SET meta = ? WHERE id = ?`, encodeMeta(part), s.id); err != nil {
			return err
		}
	}
	return nil
}
