package sqlite

import (
	"context"

	"cairn"
)

// LineStore implements [cairn.LineStore].
type LineStore struct{ db *DB }

// NewLineStore returns a LineStore over db.
func NewLineStore(db *DB) *LineStore { return &LineStore{db: db} }

var _ cairn.LineStore = (*LineStore)(nil)

// FindLines implements [cairn.LineStore]. It reads the session's current
// generation.
func (s *LineStore) FindLines(ctx context.Context, sessionID string, from, to int) ([]*cairn.Line, error) {
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return findLines(ctx, tx, sessionID, from, to)
}

// FindAllLines implements [cairn.LineStore].
func (s *LineStore) FindAllLines(ctx context.Context, sessionID string) ([]*cairn.Line, error) {
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE id = ?`, sessionID).Scan(&n); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "No session %q.", sessionID)
	}
	return scanLines(ctx, tx, sessionID, `WHERE session_id = ? ORDER BY generation, no`, sessionID)
}

func findLines(ctx context.Context, tx *Tx, sessionID string, from, to int) ([]*cairn.Line, error) {
	var gen int
	if err := tx.QueryRowContext(ctx, `SELECT generation FROM sessions WHERE id = ?`, sessionID).Scan(&gen); err != nil {
		return nil, notFound(err, "No session %q.", sessionID)
	}
	if to <= 0 {
		to = 1<<62 - 1
	}
	return scanLines(ctx, tx, sessionID, `WHERE session_id = ? AND generation = ? AND no >= ? AND no <= ? ORDER BY no`, sessionID, gen, from, to)
}

// scanLines reads the lines that tail selects with their raw bytes.
func scanLines(ctx context.Context, tx *Tx, sessionID, tail string, args ...any) ([]*cairn.Line, error) {
	rows, err := tx.QueryContext(ctx, `
		SELECT generation, no, offset, chunk_id, chunk_off, size, type, uuid, parent_uuid, timestamp, round_seq, status
		FROM lines `+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type ref struct {
		chunk     int64
		off, size int
	}
	var out []*cairn.Line
	var refs []ref
	for rows.Next() {
		l := cairn.Line{SessionID: sessionID}
		var r ref
		var ts string
		if err := rows.Scan(&l.Generation, &l.No, &l.Offset, &r.chunk, &r.off, &r.size, &l.Type, &l.UUID, &l.ParentUUID, &ts, &l.RoundSeq, &l.Status); err != nil {
			return nil, err
		}
		l.Timestamp = parseTime(ts)
		out = append(out, &l)
		refs = append(refs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	cache := chunkCache{}
	for i, r := range refs {
		if out[i].Raw, err = cache.raw(ctx, tx, r.chunk, r.off, r.size); err != nil {
			return nil, err
		}
	}
	return out, nil
}
