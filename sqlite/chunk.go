package sqlite

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn"
)

// chunkSize bounds the raw bytes in one chunk, so that reading one line
// back decompresses little more than it needs.
const chunkSize = 256 << 10

// A chunk's meta holds, for each of its lines in order: its size and file
// offset, then its type, uuid, parent uuid and timestamp (Unix
// milliseconds, 0 for none), its round and its status. Before codecPacked
// (chunkmeta.go), a line's fields follow each other: numbers are varints,
// strings a uvarint length and their bytes. The meta of every line of a
// long session is read whenever a surgical export reads it.

// encodeMeta returns the meta of lines, laid out and compressed as c
// says.
func encodeMeta(c codec, lines []*cairn.Line) []byte {
	if c == codecPacked {
		return compressWith(c, encodePacked(lines))
	}
	buf := make([]byte, 0, 128*len(lines))
	str := func(s string) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	for _, l := range lines {
		buf = binary.AppendUvarint(buf, uint64(len(l.Raw)))
		buf = binary.AppendVarint(buf, l.Offset)
		str(l.Type)
		str(l.UUID)
		str(l.ParentUUID)
		var ms int64
		if !l.Timestamp.IsZero() {
			ms = l.Timestamp.UnixMilli()
		}
		buf = binary.AppendVarint(buf, ms)
		buf = binary.AppendVarint(buf, int64(l.RoundSeq))
		str(string(l.Status))
	}
	return compressWith(c, buf)
}

// decodeMeta fills lines (SessionID and No set) from a chunk's raw data
// and meta, compressed with c.
func decodeMeta(id int64, c codec, data, meta []byte, lines []*cairn.Line) error {
	buf, err := decompress(c, meta)
	if err != nil {
		return fmt.Errorf("chunk %d meta: %w", id, err)
	}
	if c == codecPacked {
		return decodePacked(id, buf, data, lines)
	}
	bad := false
	num := func() int64 {
		v, n := binary.Varint(buf)
		if n <= 0 {
			bad = true
			return 0
		}
		buf = buf[n:]
		return v
	}
	unum := func() uint64 {
		v, n := binary.Uvarint(buf)
		if n <= 0 {
			bad = true
			return 0
		}
		buf = buf[n:]
		return v
	}
	str := func() string {
		n := unum()
		if bad || n > uint64(len(buf)) {
			bad = true
			return ""
		}
		s := string(buf[:n])
		buf = buf[n:]
		return s
	}
	off := 0
	for _, l := range lines {
		size := int(unum())
		l.Offset = num()
		l.Type, l.UUID, l.ParentUUID = str(), str(), str()
		if ms := num(); ms != 0 {
			l.Timestamp = time.UnixMilli(ms).UTC()
		}
		l.RoundSeq = int(num())
		l.Status = cairn.LineStatus(str())
		if bad || size < 0 || off+size > len(data) {
			return fmt.Errorf("chunk %d: meta of line %d does not fit its %d bytes", id, l.No, len(data))
		}
		l.Raw = data[off : off+size : off+size]
		off += size
	}
	if off != len(data) || len(buf) != 0 {
		return fmt.Errorf("chunk %d: lines cover %d of its %d bytes (%d bytes of meta left)", id, off, len(data), len(buf))
	}
	return nil
}

// fillRaw sets each line's Raw to its bytes in data, the chunk's raw
// bytes, by their sizes.
func fillRaw(id int64, data []byte, sizes []int, lines []*cairn.Line) error {
	off := 0
	for i, l := range lines {
		size := sizes[i]
		if size < 0 || off+size > len(data) {
			return fmt.Errorf("chunk %d: meta of line %d does not fit its %d bytes", id, l.No, len(data))
		}
		l.Raw = data[off : off+size : off+size]
		off += size
	}
	if off != len(data) {
		return fmt.Errorf("chunk %d: lines cover %d of its %d bytes", id, off, len(data))
	}
	return nil
}

// metaSizes returns the sizes of a chunk's n lines from its meta,
// compressed with c, reading no other field of a packed meta.
func metaSizes(id int64, c codec, meta []byte, n int, sizes []int) ([]int, error) {
	m, err := decompress(c, meta)
	if err != nil {
		return sizes, fmt.Errorf("chunk %d meta: %w", id, err)
	}
	if c == codecPacked {
		sizes, err = packedSizes(m, n, sizes)
		if err != nil {
			err = fmt.Errorf("chunk %d: %w", id, err)
		}
		return sizes, err
	}
	for range n {
		size, ok := skipMeta(&m)
		if !ok {
			return sizes, fmt.Errorf("chunk %d: its meta does not read", id)
		}
		sizes = append(sizes, size)
	}
	return sizes, nil
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
		raw := c[0].Raw // a line alone in its chunk (a long one) is not copied
		if len(c) > 1 {
			buf = buf[:0]
			for _, l := range c {
				buf = append(buf, l.Raw...)
			}
			raw = buf
		}
		out = append(out, chunk{c[0].No, c[len(c)-1].No, compress(raw), encodeMeta(chunkCodec, c)})
	}
	return out
}

// insertChunks stores chunks of a session's generation.
func insertChunks(ctx context.Context, tx *Tx, sessionID string, gen int, chunks []chunk) error {
	for _, c := range chunks {
		stmt, err := tx.prepared(ctx, `INSERT INTO chunks (session_id, generation, first_no, last_no, data, meta, codec) VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		if _, err := stmt.ExecContext(ctx, sessionID, gen, c.first, c.last, c.data, c.meta, chunkCodec); err != nil {
			return fmt.Errorf("lines %d–%d: %w", c.first, c.last, err)
		}
	}
	return nil
}

// findLines returns lines from..to (0: no bound) of a session's current
// generation.
func findLines(ctx context.Context, tx *Tx, sessionID string, from, to int) ([]*cairn.Line, error) {
	return findLinesMeta(ctx, tx, sessionID, from, to, true)
}

// findRaw returns lines from..to of a session's current generation with
// their number and raw bytes only: what a block's view reads, spared the
// strings of every line's meta.
func findRaw(ctx context.Context, tx *Tx, sessionID string, from, to int) ([]*cairn.Line, error) {
	return findLinesMeta(ctx, tx, sessionID, from, to, false)
}

// findLinesMeta is findLines, each line's meta read only when meta is set.
//
// The session's generation is a subquery of the one statement (a hook's
// import reads its last round's lines, and compiles each statement it
// runs afresh); a session that is not stored is told apart from one
// without those lines only when no line is found.
func findLinesMeta(ctx context.Context, tx *Tx, sessionID string, from, to int, meta bool) ([]*cairn.Line, error) {
	if to <= 0 {
		to = 1<<62 - 1
	}
	// A generation's chunks hold consecutive lines: the first one needed is
	// the last to start at or before from, found by the index, not by
	// reading every chunk of a long session (a hook's incremental import
	// asks for its last round's lines).
	const gen = `(SELECT generation FROM sessions WHERE id = ?1)`
	lines, err := readChunks(ctx, tx, sessionID, from, to, meta,
		`WHERE session_id = ?1 AND generation = `+gen+` AND last_no >= ?2 AND first_no <= ?3
			AND first_no >= COALESCE((SELECT MAX(first_no) FROM chunks
				WHERE session_id = ?1 AND generation = `+gen+` AND first_no <= ?2), 0)
		ORDER BY first_no`, sessionID, from, to)
	if err != nil || len(lines) > 0 {
		return lines, err
	}
	var g int
	if err := tx.QueryRowContext(ctx, `SELECT generation FROM sessions WHERE id = ?`, sessionID).Scan(&g); err != nil {
		return nil, notFound(err, "No session %q.", sessionID)
	}
	return nil, nil
}

// findAllLines returns every line of every generation of a session.
func findAllLines(ctx context.Context, tx *Tx, sessionID string) ([]*cairn.Line, error) {
	return readChunks(ctx, tx, sessionID, 0, 1<<62-1, true, `WHERE session_id = ? ORDER BY generation, first_no`, sessionID)
}

// readChunks returns the lines numbered from..to of the chunks tail selects,
// with their meta when meta is set, else with their raw bytes alone.
// The chunks are decompressed on every core (a long session's are most of
// the time of reading it), and kept in the DB's cache.
func readChunks(ctx context.Context, tx *Tx, sessionID string, from, to int, meta bool, tail string, args ...any) ([]*cairn.Line, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, generation, first_no, last_no, data, meta, codec FROM chunks `+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type stored struct {
		id          int64
		gen         int
		first, last int
		z, meta     []byte
		codec       codec
		data        []byte
		err         error
	}
	var chunks []*stored
	var todo []*stored
	for rows.Next() {
		c := &stored{}
		if err := rows.Scan(&c.id, &c.gen, &c.first, &c.last, &c.z, &c.meta, &c.codec); err != nil {
			return nil, err
		}
		chunks = append(chunks, c)
		if data, ok := tx.db.chunks.get(c.id); ok {
			c.data, c.z = data, nil
		} else {
			todo = append(todo, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	parallel(len(todo), func(i int) {
		c := todo[i]
		c.data, c.err = decompress(c.codec, c.z)
		c.z = nil
	})
	var out []*cairn.Line
	var sizes []int
	for _, c := range chunks {
		if c.err != nil {
			return nil, &cairn.Damaged{Session: sessionID, Generation: c.gen, First: c.first, Last: c.last, Err: fmt.Errorf("chunk %d: %w", c.id, c.err)}
		}
		lines := make([]*cairn.Line, c.last-c.first+1)
		for i := range lines {
			lines[i] = &cairn.Line{SessionID: sessionID, Generation: c.gen, No: c.first + i}
		}
		var err error
		if meta {
			err = decodeMeta(c.id, c.codec, c.data, c.meta, lines)
		} else {
			sizes, err = metaSizes(c.id, c.codec, c.meta, len(lines), sizes[:0])
			if err == nil {
				err = fillRaw(c.id, c.data, sizes, lines)
			}
		}
		if err != nil {
			return nil, &cairn.Damaged{Session: sessionID, Generation: c.gen, First: c.first, Last: c.last, Err: err}
		}
		tx.db.chunks.put(c.id, c.data)
		for _, l := range lines {
			if l.No >= from && l.No <= to {
				out = append(out, l)
			}
		}
	}
	return out, nil
}

// parallel runs do(0..n-1) on as many goroutines as there are cores.
func parallel(n int, do func(i int)) {
	workers := min(n, cores())
	if workers <= 1 {
		for i := range n {
			do(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				do(i)
			}
		})
	}
	wg.Wait()
}

// skipMeta reads the size of the next line's meta in *m and moves past it.
func skipMeta(m *[]byte) (int, bool) {
	b := *m
	size, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, false
	}
	b = b[n:]
	if _, n = binary.Varint(b); n <= 0 { // offset
		return 0, false
	}
	b = b[n:]
	for f := 0; f < 6; f++ { // type, uuid, parent, timestamp, round, status
		if f == 3 || f == 4 {
			if _, n = binary.Varint(b); n <= 0 {
				return 0, false
			}
			b = b[n:]
			continue
		}
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < l {
			return 0, false
		}
		b = b[n+int(l):]
	}
	*m = b
	return int(size), true
}

// updateLineMeta rewrites the meta of the chunks holding lines (a whole
// generation, in order), after reindex parsed them again.
func updateLineMeta(ctx context.Context, tx *Tx, sessionID string, lines []*cairn.Line) error {
	byNo := make(map[int]*cairn.Line, len(lines))
	for _, l := range lines {
		byNo[l.No] = l
	}
	rows, err := tx.QueryContext(ctx, `
		SELECT id, first_no, last_no, codec FROM chunks WHERE session_id = ? AND generation = (SELECT generation FROM sessions WHERE id = ?)`,
		sessionID, sessionID)
	if err != nil {
		return err
	}
	type span struct {
		id          int64
		first, last int
		codec       codec
	}
	var spans []span
	for rows.Next() {
		var s span
		if err := rows.Scan(&s.id, &s.first, &s.last, &s.codec); err != nil {
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
		if _, err := tx.ExecContext(ctx, `UPDATE chunks SET meta = ? WHERE id = ?`, encodeMeta(s.codec, part), s.id); err != nil {
			return err
		}
	}
	return nil
}
