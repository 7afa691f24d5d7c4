package sqlite

import (
	"context"

	"github.com/cairn-dev/cairn"
)

// EngagementStore implements [cairn.EngagementStore].
type EngagementStore struct{ db *DB }

// NewEngagementStore returns an EngagementStore over db.
func NewEngagementStore(db *DB) *EngagementStore { return &EngagementStore{db: db} }

var _ cairn.EngagementStore = (*EngagementStore)(nil)

// SetEngagementPhases implements [cairn.EngagementStore].
func (s *EngagementStore) SetEngagementPhases(ctx context.Context, engagementID string, phases []cairn.EngagementPhase) (err error) {
	defer s.db.explain(&err)
	if err := cairn.ValidateEngagementPhases(engagementID, phases); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM engagement_phases WHERE engagement_id = ?`, engagementID); err != nil {
		return err
	}
	for i, p := range phases {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO engagement_phases (engagement_id, seq, name, started_at, ended_at) VALUES (?, ?, ?, ?, ?)`,
			engagementID, i+1, p.Name, formatTime(p.StartedAt), formatTime(p.EndedAt)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// FindEngagementPhases implements [cairn.EngagementStore].
func (s *EngagementStore) FindEngagementPhases(ctx context.Context, engagementID string) (_ []cairn.EngagementPhase, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `
		SELECT engagement_id, seq, name, started_at, ended_at FROM engagement_phases
		WHERE ? = '' OR engagement_id = ? ORDER BY engagement_id, seq`, engagementID, engagementID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cairn.EngagementPhase
	for rows.Next() {
		var p cairn.EngagementPhase
		var started, ended string
		if err := rows.Scan(&p.EngagementID, &p.Seq, &p.Name, &started, &ended); err != nil {
			return nil, err
		}
		p.StartedAt, p.EndedAt = parseTime(started), parseTime(ended)
		out = append(out, p)
	}
	return out, rows.Err()
}
