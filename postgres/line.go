package postgres

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn"

	"github.com/jackc/pgx/v5"
)

// LineStore implements [cairn.LineStore].
type LineStore struct{ db *DB }

// NewLineStore returns a LineStore over db.
func NewLineStore(db *DB) *LineStore { return &LineStore{db: db} }

var _ cairn.LineStore = (*LineStore)(nil)

// FindLines implements [cairn.LineStore]. It reads the session's current
// generation.
func (s *LineStore) FindLines(ctx context.Context, sessionID string, from, to int) (_ []*cairn.Line, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	return findLines(ctx, tx, sessionID, from, to)
}

// FindAllLines implements [cairn.LineStore].
func (s *LineStore) FindAllLines(ctx context.Context, sessionID string) (_ []*cairn.Line, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	var n int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM sessions WHERE id = $1`, sessionID).Scan(&n); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "No session %q.", sessionID)
	}
	return scanLines(ctx, tx, sessionID, `WHERE session_id = $1 ORDER BY generation, no`, sessionID)
}

func findLines(ctx context.Context, tx *Tx, sessionID string, from, to int) ([]*cairn.Line, error) {
	var gen int
	if err := tx.QueryRow(ctx, `SELECT generation FROM sessions WHERE id = $1`, sessionID).Scan(&gen); err != nil {
		return nil, notFound(err, "No session %q.", sessionID)
	}
	if to <= 0 {
		to = 1<<31 - 1
	}
	return scanLines(ctx, tx, sessionID, `WHERE session_id = $1 AND generation = $2 AND no >= $3 AND no <= $4 ORDER BY no`,
		sessionID, gen, from, to)
}

func scanLines(ctx context.Context, tx *Tx, sessionID, tail string, args ...any) ([]*cairn.Line, error) {
	rows, err := tx.Query(ctx, `
		SELECT generation, no, "offset", raw, type, uuid, parent_uuid, timestamp, round_seq, status, crc FROM lines `+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Line
	var bad *cairn.Damaged
	for rows.Next() {
		l := cairn.Line{SessionID: sessionID}
		var crc *int64
		if err := rows.Scan(&l.Generation, &l.No, &l.Offset, &l.Raw, &l.Type, &l.UUID, &l.ParentUUID, scanTime{&l.Timestamp},
			&l.RoundSeq, &l.Status, &crc); err != nil {
			return nil, err
		}
		if l.Raw == nil {
			l.Raw = []byte{}
		}
		if crc != nil && *crc != lineCRC(l.Raw) {
			if bad == nil {
				bad = &cairn.Damaged{Session: sessionID, Generation: l.Generation, First: l.No, Checksum: true}
			}
			bad.Last = l.No
		}
		out = append(out, &l)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if bad != nil {
		return nil, bad
	}
	return out, nil
}

// insertLines copies lines in, raw bytes as they are.
func insertLines(ctx context.Context, tx *Tx, sessionID string, gen int, lines []*cairn.Line) error {
	cols := []string{"session_id", "generation", "no", "offset", "raw", "type", "uuid", "parent_uuid", "timestamp", "round_seq", "status", "crc"}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"lines"}, cols, pgx.CopyFromSlice(len(lines), func(i int) ([]any, error) {
		l := lines[i]
		return []any{sessionID, gen, l.No, l.Offset, l.Raw, clean(l.Type), clean(l.UUID), clean(l.ParentUUID),
			nullTime(l.Timestamp), l.RoundSeq, string(l.Status), lineCRC(l.Raw)}, nil
	}))
	if err != nil && len(lines) > 0 {
		return fmt.Errorf("lines %d–%d: %w", lines[0].No, lines[len(lines)-1].No, err)
	}
	return err
}

// updateLines stores what a rebuild parsed from the current generation's
// lines; their raw bytes stay as they are.
func updateLines(ctx context.Context, tx *Tx, sessionID string, lines []*cairn.Line) error {
	n := len(lines)
	nos, types, uuids, parents := make([]int32, n), make([]string, n), make([]string, n), make([]string, n)
	times, seqs, statuses := make([]any, n), make([]int32, n), make([]string, n)
	for i, l := range lines {
		nos[i], types[i], uuids[i], parents[i] = int32(l.No), clean(l.Type), clean(l.UUID), clean(l.ParentUUID)
		times[i], seqs[i], statuses[i] = nullTime(l.Timestamp), int32(l.RoundSeq), string(l.Status)
	}
	_, err := tx.Exec(ctx, `
		UPDATE lines l SET type = u.type, uuid = u.uuid, parent_uuid = u.parent_uuid, timestamp = u.ts,
			round_seq = u.round_seq, status = u.status
		FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::int[], $8::text[])
			AS u(no, type, uuid, parent_uuid, ts, round_seq, status)
		WHERE l.session_id = $1 AND l.generation = (SELECT generation FROM sessions WHERE id = $1) AND l.no = u.no`,
		sessionID, nos, types, uuids, parents, times, seqs, statuses)
	return err
}
