package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cairn-dev/cairn"
)

// FrameStore implements [cairn.FrameStore].
type FrameStore struct{ db *DB }

// NewFrameStore returns a FrameStore over db.
func NewFrameStore(db *DB) *FrameStore { return &FrameStore{db: db} }

var _ cairn.FrameStore = (*FrameStore)(nil)

// FindFrameByID implements [cairn.FrameStore].
func (s *FrameStore) FindFrameByID(ctx context.Context, id string) (_ *cairn.Frame, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return findFrameByID(ctx, tx, id)
}

// FindFrames implements [cairn.FrameStore].
func (s *FrameStore) FindFrames(ctx context.Context) (_ []*cairn.Frame, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return findFrames(ctx, tx, `ORDER BY n`)
}

// ApplyFrameChange implements [cairn.FrameStore].
func (s *FrameStore) ApplyFrameChange(ctx context.Context, c *cairn.FrameChange) (err error) {
	defer s.db.explain(&err)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, f := range c.Guard {
		if err := checkVersion(ctx, tx, f); err != nil {
			return err
		}
	}
	for _, f := range c.Update {
		if err := updateFrame(ctx, tx, f); err != nil {
			return err
		}
	}
	for _, f := range c.Create {
		if err := createFrame(ctx, tx, f); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// Stamp the caller's copies only once the write is durable.
	for _, f := range c.Update {
		f.Version++
		f.UpdatedAt = tx.now
	}
	return nil
}

// TagFrameRounds implements [cairn.FrameStore].
func (s *FrameStore) TagFrameRounds(ctx context.Context, frameID string, rounds []cairn.RoundRef) (err error) {
	defer s.db.explain(&err)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if frameID != "" {
		if _, err := findFrameByID(ctx, tx, frameID); err != nil {
			return err
		}
	}
	for _, r := range rounds {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO round_tags (session_id, seq, frame_id) VALUES (?, ?, ?)
			ON CONFLICT (session_id, seq) DO UPDATE SET frame_id = excluded.frame_id`, r.SessionID, r.Seq, frameID); err != nil {
			return fmt.Errorf("tag %s: %w", r, err)
		}
	}
	return tx.Commit()
}

func findFrameByID(ctx context.Context, tx *Tx, id string) (*cairn.Frame, error) {
	frames, err := findFrames(ctx, tx, `WHERE id = ?`, id)
	if err != nil {
		return nil, err
	} else if len(frames) == 0 {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "No frame %q.", id)
	}
	return frames[0], nil
}

// checkVersion returns ECONFLICT if f changed since it was read.
func checkVersion(ctx context.Context, tx *Tx, f *cairn.Frame) error {
	var version int
	err := tx.QueryRowContext(ctx, `SELECT version FROM frames WHERE id = ?`, f.ID).Scan(&version)
	if err != nil {
		return notFound(err, "No frame %q.", f.ID)
	} else if version != f.Version {
		return cairn.Errorf(cairn.ECONFLICT, "Frame %s changed meanwhile (version %d, read at %d); read it again.", f.ID, version, f.Version)
	}
	return nil
}

func createFrame(ctx context.Context, tx *Tx, f *cairn.Frame) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if f.ParentID != "" {
		if _, err := findFrameByID(ctx, tx, f.ParentID); err != nil {
			return err
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(n), 0) + 1 FROM frames`).Scan(&n); err != nil {
		return err
	}
	id := f.ID
	for id == "" {
		id = fmt.Sprintf("f%d", n)
		var taken int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM frames WHERE id = ?`, id).Scan(&taken); err != nil {
			return err
		} else if taken > 0 {
			id, n = "", n+1
		}
	}
	var taken int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM frames WHERE id = ?`, id).Scan(&taken); err != nil {
		return err
	} else if taken > 0 {
		return cairn.Errorf(cairn.ECONFLICT, "Frame ID %s is taken.", id)
	}
	artifacts, decisions, deps := jsonList(f.Artifacts), jsonList(f.Decisions), jsonList(f.DependsOn)
	now := formatTime(tx.now)
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO frames (n, id, parent_id, title, success_criteria, success_criteria_compacted, status, results, results_compacted,
			artifacts, decisions, depends_on, owner, session_id, version, created_at, updated_at, started_at, ended_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
		n, id, f.ParentID, f.Title, f.SuccessCriteria, f.SuccessCriteriaCompacted, f.Status, f.Results, f.ResultsCompacted,
		artifacts, decisions, deps, f.Owner, f.SessionID, now, now, formatTime(f.StartedAt), formatTime(f.EndedAt)); err != nil {
		return err
	}
	f.ID, f.Version, f.CreatedAt, f.UpdatedAt = id, 1, tx.now, tx.now
	return nil
}

// updateFrame writes f if its stored version is still f.Version.
func updateFrame(ctx context.Context, tx *Tx, f *cairn.Frame) error {
	if err := f.Validate(); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `
		UPDATE frames SET title = ?, success_criteria = ?, success_criteria_compacted = ?, status = ?, results = ?,
			results_compacted = ?, artifacts = ?, decisions = ?, depends_on = ?, owner = ?, version = version + 1,
			updated_at = ?, started_at = ?, ended_at = ?
		WHERE id = ? AND version = ?`,
		f.Title, f.SuccessCriteria, f.SuccessCriteriaCompacted, f.Status, f.Results, f.ResultsCompacted,
		jsonList(f.Artifacts), jsonList(f.Decisions), jsonList(f.DependsOn), f.Owner, formatTime(tx.now),
		formatTime(f.StartedAt), formatTime(f.EndedAt), f.ID, f.Version)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return checkVersion(ctx, tx, f) // ENOTFOUND or ECONFLICT
	}
	return nil
}

func findFrames(ctx context.Context, tx *Tx, tail string, args ...any) ([]*cairn.Frame, error) {
	rows, err := tx.QueryContext(ctx, `
		SELECT id, parent_id, title, success_criteria, success_criteria_compacted, status, results, results_compacted,
			artifacts, decisions, depends_on, owner, session_id, version, created_at, updated_at, started_at, ended_at
		FROM frames `+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Frame
	for rows.Next() {
		var f cairn.Frame
		var artifacts, decisions, deps, created, updated, started, ended string
		if err := rows.Scan(&f.ID, &f.ParentID, &f.Title, &f.SuccessCriteria, &f.SuccessCriteriaCompacted, &f.Status,
			&f.Results, &f.ResultsCompacted, &artifacts, &decisions, &deps, &f.Owner, &f.SessionID, &f.Version,
			&created, &updated, &started, &ended); err != nil {
			return nil, err
		}
		for _, l := range []struct {
			s   string
			dst *[]string
		}{{artifacts, &f.Artifacts}, {decisions, &f.Decisions}, {deps, &f.DependsOn}} {
			if err := json.Unmarshal([]byte(l.s), l.dst); err != nil {
				return nil, fmt.Errorf("frame %s: %w", f.ID, err)
			}
		}
		f.CreatedAt, f.UpdatedAt = parseTime(created), parseTime(updated)
		f.StartedAt, f.EndedAt = parseTime(started), parseTime(ended)
		out = append(out, &f)
	}
	return out, rows.Err()
}

// jsonList encodes a list as a JSON array, [] for none.
func jsonList(s []string) string {
	if len(s) == 0 {
		return "[]"
	}
	buf, _ := json.Marshal(s)
	return string(buf)
}
