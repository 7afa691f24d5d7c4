package postgres

import (
	"context"
	"errors"

	"github.com/cairn-dev/cairn"

	"github.com/jackc/pgx/v5/pgconn"
)

// MissionStore implements [cairn.MissionStore].
type MissionStore struct{ db *DB }

// NewMissionStore returns a MissionStore over db.
func NewMissionStore(db *DB) *MissionStore { return &MissionStore{db: db} }

var _ cairn.MissionStore = (*MissionStore)(nil)

// FindMission implements [cairn.MissionStore].
func (s *MissionStore) FindMission(ctx context.Context) (_ *cairn.Mission, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	var m cairn.Mission
	err = tx.QueryRow(ctx, `SELECT text, workspace, progress, updated_at FROM missions WHERE id = 1`).
		Scan(&m.Text, &m.Workspace, &m.Progress, scanTime{&m.UpdatedAt})
	if err != nil {
		return nil, notFound(err, "No mission is set. Set one with: cairn mission set TEXT")
	}
	phases, err := findPhases(ctx, tx, `ORDER BY seq DESC LIMIT 1`)
	if err != nil {
		return nil, err
	} else if len(phases) > 0 {
		m.Phase = phases[0]
	}
	return &m, nil
}

// SetMission implements [cairn.MissionStore].
func (s *MissionStore) SetMission(ctx context.Context, m *cairn.Mission) (err error) {
	defer s.db.explain(&err)
	if err := m.Validate(); err != nil {
		return err
	}
	now := s.db.Now()
	err = s.db.write(ctx, func(tx *Tx) error {
		now = tx.now
		_, err := tx.Exec(ctx, `
			INSERT INTO missions (id, text, workspace, progress, updated_at) VALUES (1, $1, $2, $3, $4)
			ON CONFLICT (id) DO UPDATE SET text = excluded.text, workspace = excluded.workspace,
				progress = excluded.progress, updated_at = excluded.updated_at`,
			m.Text, m.Workspace, m.Progress, tx.now)
		return err
	})
	if err != nil {
		return err
	}
	m.UpdatedAt = now
	return nil
}

// AddPhase implements [cairn.MissionStore].
func (s *MissionStore) AddPhase(ctx context.Context, p *cairn.Phase) (err error) {
	defer s.db.explain(&err)
	if err := p.Validate(); err != nil {
		return err
	}
	now := s.db.Now()
	err = s.db.write(ctx, func(tx *Tx) error {
		now = tx.now
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM missions`).Scan(&n); err != nil {
			return err
		} else if n == 0 {
			return cairn.Errorf(cairn.ENOTFOUND, "No mission is set. Set one with: cairn mission set TEXT")
		}
		_, err := tx.Exec(ctx, `INSERT INTO phases (seq, name, task, outputs, reason, started_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			p.Seq, p.Name, p.Task, list(p.Outputs), p.Reason, tx.now)
		return err
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" { // unique_violation: another writer started it first
		return cairn.Errorf(cairn.ECONFLICT, "Phase %d was already started; read the mission again.", p.Seq)
	} else if err != nil {
		return err
	}
	p.StartedAt = now
	return nil
}

// FindPhases implements [cairn.MissionStore].
func (s *MissionStore) FindPhases(ctx context.Context) (_ []*cairn.Phase, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	return findPhases(ctx, tx, `ORDER BY seq`)
}

func findPhases(ctx context.Context, tx *Tx, tail string) ([]*cairn.Phase, error) {
	rows, err := tx.Query(ctx, `SELECT seq, name, task, outputs, reason, started_at FROM phases `+tail)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Phase
	for rows.Next() {
		var p cairn.Phase
		if err := rows.Scan(&p.Seq, &p.Name, &p.Task, &p.Outputs, &p.Reason, scanTime{&p.StartedAt}); err != nil {
			return nil, err
		}
		out = append(out, &p)
	}
	return out, rows.Err()
}
