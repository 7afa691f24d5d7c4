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
