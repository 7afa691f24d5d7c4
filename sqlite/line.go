package sqlite

import (
	"context"

	"github.com/cairn-dev/cairn"
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
	defer tx.Rollback()
	return findLines(ctx, tx, sessionID, from, to)
}

// FindAllLines implements [cairn.LineStore].
func (s *LineStore) FindAllLines(ctx context.Context, sessionID string) (_ []*cairn.Line, err error) {
	defer s.db.explain(&err)
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
	return findAllLines(ctx, tx, sessionID)
}
