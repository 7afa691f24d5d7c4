package postgres

import (
	"context"
	"time"

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
	return s.db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM engagement_phases WHERE engagement_id = $1`, engagementID); err != nil {
			return err
		}
		for i, p := range phases {
			var ended *time.Time
			if !p.EndedAt.IsZero() {
				t := p.EndedAt.UTC()
				ended = &t
			}
			if _, err := tx.Exec(ctx, `
				INSERT INTO engagement_phases (engagement_id, seq, name, started_at, ended_at) VALUES ($1, $2, $3, $4, $5)`,
				engagementID, i+1, p.Name, p.StartedAt.UTC(), ended); err != nil {
				return err
			}
		}
		return nil
	})
}

// FindEngagementPhases implements [cairn.EngagementStore].
func (s *EngagementStore) FindEngagementPhases(ctx context.Context, engagementID string) (_ []cairn.EngagementPhase, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, `
		SELECT engagement_id, seq, name, started_at, ended_at FROM engagement_phases
		WHERE $1 = '' OR engagement_id = $1 ORDER BY engagement_id, seq`, engagementID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cairn.EngagementPhase
	for rows.Next() {
		var p cairn.EngagementPhase
		if err := rows.Scan(&p.EngagementID, &p.Seq, &p.Name, scanTime{&p.StartedAt}, scanTime{&p.EndedAt}); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
