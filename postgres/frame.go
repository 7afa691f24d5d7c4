package postgres

import (
	"context"
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
	defer tx.Rollback(ctx)
	return findFrameByID(ctx, tx, id, "")
}

// FindFrames implements [cairn.FrameStore].
func (s *FrameStore) FindFrames(ctx context.Context) (_ []*cairn.Frame, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	return findFrames(ctx, tx, `ORDER BY n`)
}

// ApplyFrameChange implements [cairn.FrameStore].
func (s *FrameStore) ApplyFrameChange(ctx context.Context, c *cairn.FrameChange) (err error) {
	defer s.db.explain(&err)
	var now = s.db.Now()
	err = s.db.write(ctx, func(tx *Tx) error {
		now = tx.now
		// Frame writers take turns: creation numbers frames from the
		// highest n, and a guard must hold until the commit.
		if _, err := tx.Exec(ctx, `LOCK TABLE frames IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
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
		return nil
	})
	if err != nil {
		return err
	}
	// Stamp the caller's copies only once the write is durable.
	for _, f := range c.Update {
		f.Version++
		f.UpdatedAt = now
	}
	return nil
}

// TagFrameRounds implements [cairn.FrameStore].
func (s *FrameStore) TagFrameRounds(ctx context.Context, frameID string, rounds []cairn.RoundRef) (err error) {
	defer s.db.explain(&err)
	return s.db.write(ctx, func(tx *Tx) error {
		if frameID != "" {
			if _, err := findFrameByID(ctx, tx, frameID, "FOR SHARE"); err != nil {
				return err
			}
		}
		for _, r := range rounds {
			if _, err := tx.Exec(ctx, `
				INSERT INTO round_tags (session_id, seq, frame_id) VALUES ($1, $2, $3)
				ON CONFLICT (session_id, seq) DO UPDATE SET frame_id = excluded.frame_id`, r.SessionID, r.Seq, frameID); err != nil {
				return fmt.Errorf("tag %s: %w", r, err)
			}
		}
		return nil
	})
}

func findFrameByID(ctx context.Context, tx *Tx, id, lock string) (*cairn.Frame, error) {
	frames, err := findFrames(ctx, tx, `WHERE id = $1 `+lock, id)
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
	err := tx.QueryRow(ctx, `SELECT version FROM frames WHERE id = $1`, f.ID).Scan(&version)
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
		if _, err := findFrameByID(ctx, tx, f.ParentID, ""); err != nil {
			return err
		}
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(n), 0) + 1 FROM frames`).Scan(&n); err != nil {
		return err
	}
	id := f.ID
	for id == "" {
		id = fmt.Sprintf("f%d", n)
		var taken int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM frames WHERE id = $1`, id).Scan(&taken); err != nil {
			return err
		} else if taken > 0 {
			id, n = "", n+1
		}
	}
	var taken int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM frames WHERE id = $1`, id).Scan(&taken); err != nil {
		return err
	} else if taken > 0 {
		return cairn.Errorf(cairn.ECONFLICT, "Frame ID %s is taken.", id)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO frames (n, id, parent_id, title, success_criteria, success_criteria_compacted, status, results, results_compacted,
			artifacts, decisions, depends_on, owner, session_id, version, created_at, updated_at, started_at, ended_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 1, $15, $15, $16, $17)`,
		n, id, f.ParentID, f.Title, f.SuccessCriteria, f.SuccessCriteriaCompacted, f.Status, f.Results, f.ResultsCompacted,
		list(f.Artifacts), list(f.Decisions), list(f.DependsOn), f.Owner, f.SessionID, tx.now, nullTime(f.StartedAt), nullTime(f.EndedAt)); err != nil {
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
	tag, err := tx.Exec(ctx, `
		UPDATE frames SET title = $1, success_criteria = $2, success_criteria_compacted = $3, status = $4, results = $5,
			results_compacted = $6, artifacts = $7, decisions = $8, depends_on = $9, owner = $10, version = version + 1,
			updated_at = $11, started_at = $12, ended_at = $13
		WHERE id = $14 AND version = $15`,
		f.Title, f.SuccessCriteria, f.SuccessCriteriaCompacted, f.Status, f.Results, f.ResultsCompacted,
		list(f.Artifacts), list(f.Decisions), list(f.DependsOn), f.Owner, tx.now,
		nullTime(f.StartedAt), nullTime(f.EndedAt), f.ID, f.Version)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return checkVersion(ctx, tx, f) // ENOTFOUND or ECONFLICT
	}
	return nil
}

func findFrames(ctx context.Context, tx *Tx, tail string, args ...any) ([]*cairn.Frame, error) {
	rows, err := tx.Query(ctx, `
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
		if err := rows.Scan(&f.ID, &f.ParentID, &f.Title, &f.SuccessCriteria, &f.SuccessCriteriaCompacted, &f.Status,
			&f.Results, &f.ResultsCompacted, &f.Artifacts, &f.Decisions, &f.DependsOn, &f.Owner, &f.SessionID, &f.Version,
			scanTime{&f.CreatedAt}, scanTime{&f.UpdatedAt}, scanTime{&f.StartedAt}, scanTime{&f.EndedAt}); err != nil {
			return nil, err
		}
		out = append(out, &f)
	}
	return out, rows.Err()
}

// list is a list as a JSONB array: [] for none.
func list(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
