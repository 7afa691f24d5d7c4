package sqlite

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"

	"github.com/cairn-dev/cairn"
)

// relayoutChunks is how many chunks one transaction of [DB.Relayout]
// recompresses: about 8 MB of lines, a fraction of a second of the
// write lock.
var relayoutChunks = 32 // a variable for tests

// Relayout rewrites, in place, a store written before migration 0012, or
// with chunks of an older codec, into the layout new imports write: each
// chunk recompressed with chunkCodec and its meta laid out again, every
// line of it checked against its SHA-256 and its meta before the old
// bytes are replaced, and each block's text made a view of its line wherever
// reading it back gives it byte for byte. Sessions are rewritten one at a
// time, their chunks relayoutChunks to a transaction and their blocks in
// one; relaid lists the sessions done. Killed at any point, it leaves a
// store every reader reads (a chunk is in one codec or the other, a block
// holds its text or its view) and carries on where it stopped when run
// again. Then, when vacuum is set and it rewrote a session or a
// twentieth of the store's pages are free, VACUUM gives the free pages
// back to the file system. progress, when not nil, is called after each session.
//
// It is the only writer that replaces raw bytes (AGENTS.md, rule 1): the
// same lines, in another encoding, checked before they are replaced.
func (db *DB) Relayout(ctx context.Context, vacuum bool, progress func(done, total int)) (_ *cairn.RelayoutReport, err error) {
	defer db.explain(&err)
	if db.readOnly {
		return nil, cairn.Errorf(cairn.EINVALID, "The store %s is read-only for this user: it cannot be rewritten.", db.Path)
	}
	rep := &cairn.RelayoutReport{Before: storeBytes(db.Path)}
	tx, err := db.read(ctx)
	if err != nil {
		return nil, err
	}
	todo, err := readColumn[string](ctx, tx, `SELECT id FROM sessions WHERE id NOT IN (SELECT session_id FROM relaid)
		OR id IN (SELECT DISTINCT session_id FROM chunks WHERE codec != ?) ORDER BY id`, chunkCodec)
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	err = tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions`).Scan(&rep.Sessions)
	tx.Rollback()
	if err != nil {
		return nil, err
	}
	for i, id := range todo {
		if err := db.relayoutSession(ctx, id, rep); err != nil {
			return rep, fmt.Errorf("rewrite session %s: %w", id, err)
		}
		rep.Relaid++
		if progress != nil {
			progress(i+1, len(todo))
		}
	}
	if vacuum && (rep.Relaid > 0 || db.freeShare(ctx) >= vacuumFree) {
		if _, err := db.db.ExecContext(ctx, `VACUUM`); err != nil {
			return rep, fmt.Errorf("vacuum: %w", err)
		}
		if _, err := db.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			return rep, err
		}
	}
	rep.After = storeBytes(db.Path)
	return rep, nil
}

// vacuumFree is the share of a store's pages left free (by a migration
// that rebuilt a table, such as 0020's search index, or by dropped
// sessions) past which Relayout vacuums it though it rewrote nothing.
const vacuumFree = 0.05

// freeShare returns the share of the store's pages that are free (0 if
// it cannot tell).
func (db *DB) freeShare(ctx context.Context) float64 {
	var free, pages int64
	if db.db.QueryRowContext(ctx, `SELECT freelist_count, page_count FROM pragma_freelist_count(), pragma_page_count()`).Scan(&free, &pages) != nil || pages == 0 {
		return 0
	}
	return float64(free) / float64(pages)
}

// relayoutSession rewrites session id's chunks, then its blocks.
func (db *DB) relayoutSession(ctx context.Context, id string, rep *cairn.RelayoutReport) error {
	for {
		n, err := db.recompress(ctx, id, rep)
		if err != nil {
			return err
		}
		if n < relayoutChunks {
			break
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := viewBlocks(ctx, tx, id, rep); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO relaid (session_id) VALUES (?)`, id); err != nil {
		return err
	}
	return tx.Commit()
}

// recompress rewrites up to relayoutChunks of session id's chunks not in
// chunkCodec, in one transaction, and returns how many.
func (db *DB) recompress(ctx context.Context, id string, rep *cairn.RelayoutReport) (int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, generation, first_no, last_no FROM chunks WHERE session_id = ? AND codec != ? ORDER BY id LIMIT ?`,
		id, chunkCodec, relayoutChunks)
	if err != nil {
		return 0, err
	}
	type ref struct {
		id               int64
		gen, first, last int
	}
	var refs []ref
	for rows.Next() {
		var r ref
		if err := rows.Scan(&r.id, &r.gen, &r.first, &r.last); err != nil {
			rows.Close()
			return 0, err
		}
		refs = append(refs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	lines, verified := 0, 0
	for _, r := range refs {
		var z, meta []byte
		var c codec
		if err := tx.QueryRowContext(ctx, `SELECT data, meta, codec FROM chunks WHERE id = ?`, r.id).Scan(&z, &meta, &c); err != nil {
			return 0, err
		}
		at := &cairn.Damaged{Session: id, Generation: r.gen, First: r.first, Last: r.last}
		old, err := chunkLines(r.id, c, z, meta, r.first, r.last)
		if err != nil {
			at.Err = err
			return 0, at
		}
		data, err := decompress(c, z)
		if err != nil {
			at.Err = err
			return 0, at
		}
		nz, nmeta := z, encodeMeta(chunkCodec, old)
		if !sameData(c, chunkCodec) {
			nz = compress(data)
		}
		sums := make([][sha256.Size]byte, len(old))
		for i, l := range old {
			sums[i] = sha256.Sum256(l.Raw)
		}
		data = nil
		back, err := chunkLines(r.id, chunkCodec, nz, nmeta, r.first, r.last)
		if err != nil {
			return 0, fmt.Errorf("chunk %d recompressed does not read back: %w", r.id, err)
		}
		for i, l := range back {
			if i >= len(sums) {
				break
			}
			if sha256.Sum256(l.Raw) != sums[i] {
				return 0, fmt.Errorf("chunk %d recompressed: line %d reads back with another SHA-256", r.id, l.No)
			}
			if !sameMeta(l, old[i]) {
				return 0, fmt.Errorf("chunk %d recompressed: line %d's meta reads back as %+v, not %+v", r.id, l.No, *l, *old[i])
			}
		}
		old = nil
		if len(back) != len(sums) {
			return 0, fmt.Errorf("chunk %d recompressed: %d lines read back of %d", r.id, len(back), len(sums))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE chunks SET data = ?, meta = ?, codec = ? WHERE id = ?`, nz, nmeta, chunkCodec, r.id); err != nil {
			return 0, err
		}
		lines += len(sums)
		verified++
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	rep.Chunks += verified
	rep.Lines += lines
	return len(refs), nil
}

// sameData says whether chunks of codecs a and b compress their data
// alike: a chunk of a moves to b by its meta alone.
func sameData(a, b codec) bool {
	zstd := func(c codec) bool { return c == codecZstd || c == codecPacked }
	return a == b || zstd(a) && zstd(b)
}

// sameMeta says whether a and b have the same meta.
func sameMeta(a, b *cairn.Line) bool {
	return a.No == b.No && a.Offset == b.Offset && a.Type == b.Type && a.UUID == b.UUID && a.ParentUUID == b.ParentUUID &&
		a.Timestamp.Equal(b.Timestamp) && a.RoundSeq == b.RoundSeq && a.Status == b.Status
}

// chunkLines returns the lines first..last of a chunk as stored.
func chunkLines(id int64, c codec, z, meta []byte, first, last int) ([]*cairn.Line, error) {
	data, err := decompress(c, z)
	if err != nil {
		return nil, fmt.Errorf("chunk %d: %w", id, err)
	}
	lines := make([]*cairn.Line, last-first+1)
	for i := range lines {
		lines[i] = &cairn.Line{No: first + i}
	}
	return lines, decodeMeta(id, c, data, meta, lines)
}

// viewBlocks makes the text of session id's blocks that keep it inline a
// view of their line wherever one gives it back, one chunk's lines at a
// time, so that a long session is never held whole.
func viewBlocks(ctx context.Context, tx *Tx, id string, rep *cairn.RelayoutReport) error {
	rows, err := tx.QueryContext(ctx, `SELECT first_no, last_no FROM chunks
		WHERE session_id = ? AND generation = (SELECT generation FROM sessions WHERE id = ?) ORDER BY first_no`, id, id)
	if err != nil {
		return err
	}
	var spans [][2]int
	for rows.Next() {
		var s [2]int
		if err := rows.Scan(&s[0], &s[1]); err != nil {
			rows.Close()
			return err
		}
		spans = append(spans, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, s := range spans {
		lines, err := findRaw(ctx, tx, id, s[0], s[1])
		if err != nil {
			return err
		}
		src := newLineSource(id, lines)
		brows, err := tx.QueryContext(ctx, `SELECT id, line_no, content FROM blocks
			WHERE session_num = `+numOf+` AND line_no BETWEEN ?2 AND ?3 AND span IS NULL AND length(CAST(content AS BLOB)) >= ? ORDER BY line_no, idx`,
			id, s[0], s[1], viewMin)
		if err != nil {
			return err
		}
		type found struct {
			id   int64
			span int64
		}
		var views []found
		for brows.Next() {
			b := cairn.Block{SessionID: id}
			if err := brows.Scan(&b.ID, &b.LineNo, &b.Content); err != nil {
				brows.Close()
				return err
			}
			content, span, err := src.view(ctx, tx, &b)
			if err != nil {
				brows.Close()
				return err
			}
			if content != "" || span == nil {
				continue
			}
			// Read back as every reader will, before the text goes.
			back, err := unpackView(span.(int64)).text(src.lines[b.LineNo])
			if err != nil || back != b.Content {
				brows.Close()
				return fmt.Errorf("block %d: its view reads back %d bytes of its %d (%v)", b.ID, len(back), len(b.Content), err)
			}
			views = append(views, found{b.ID, span.(int64)})
		}
		brows.Close()
		if err := brows.Err(); err != nil {
			return err
		}
		for _, v := range views {
			if _, err := tx.ExecContext(ctx, `UPDATE blocks SET content = '', span = ? WHERE id = ?`, v.span, v.id); err != nil {
				return err
			}
		}
		rep.Views += len(views)
	}
	return nil
}

// storeBytes is the size of the store's file and its -wal.
func storeBytes(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if info, err := os.Stat(p); err == nil {
			n += info.Size()
		} else if !errors.Is(err, os.ErrNotExist) {
			return -1
		}
	}
	return n
}
