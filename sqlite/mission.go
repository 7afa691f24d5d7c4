package sqlite

import (
	"context"
	"encoding/json"

	"github.com/cairn-dev/cairn"
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
	defer tx.Rollback()
	var m cairn.Mission
	var updated string
	err = tx.QueryRowContext(ctx, `SELECT text, workspace, progress, updated_at FROM missions WHERE id = 1`).
		Scan(&m.Text, &m.Workspace, &m.Progress, &updated)
	if err != nil {
		return nil, notFound(err, "No mission is set. Set one with: cairn mission set TEXT")
	}
	m.UpdatedAt = parseTime(updated)
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
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO missions (id, text, workspace, progress, updated_at) VALUES (1, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET text = excluded.text, workspace = excluded.workspace,
			progress = excluded.progress, updated_at = excluded.updated_at`,
		m.Text, m.Workspace, m.Progress, formatTime(tx.now)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	m.UpdatedAt = tx.now
	return nil
}

// AddPhase implements [cairn.MissionStore].
func (s *MissionStore) AddPhase(ctx context.Context, p *cairn.Phase) (err error) {
	defer s.db.explain(&err)
	if err := p.Validate(); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM missions`).Scan(&n); err != nil {
		return err
	} else if n == 0 {
		return cairn.Errorf(cairn.ENOTFOUND, "No mission is set. Set one with: cairn mission set TEXT")
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM phases WHERE seq = ?`, p.Seq).Scan(&n); err != nil {
		return err
	} else if n > 0 {
		return cairn.Errorf(cairn.ECONFLICT, "Phase %d was already started; read the mission again.", p.Seq)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO phases (seq, name, task, outputs, reason, started_at) VALUES (?, ?, ?, ?, ?, ?)`,
		p.Seq, p.Name, p.Task, jsonList(p.Outputs), p.Reason, formatTime(tx.now)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	p.StartedAt = tx.now
	return nil
}

// FindPhases implements [cairn.MissionStore].
func (s *MissionStore) FindPhases(ctx context.Context) (_ []*cairn.Phase, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return findPhases(ctx, tx, `ORDER BY seq`)
}

func findPhases(ctx context.Context, tx *Tx, tail string) ([]*cairn.Phase, error) {
	rows, err := tx.QueryContext(ctx, `SELECT seq, name, task, outputs, reason, started_at FROM phases `+tail)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Phase
	for rows.Next() {
		var p cairn.Phase
		var outputs, started string
		if err := rows.Scan(&p.Seq, &p.Name, &p.Task, &outputs, &p.Reason, &started); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(outputs), &p.Outputs); err != nil {
			return nil, err
		}
		p.StartedAt = parseTime(started)
		out = append(out, &p)
	}
	return out, rows.Err()
}
