package sqlite

import (
	"context"

	"github.com/cairn-dev/cairn"
)

// TagStore implements [cairn.TagStore].
type TagStore struct{ db *DB }

// NewTagStore returns a TagStore over db.
func NewTagStore(db *DB) *TagStore { return &TagStore{db: db} }

var _ cairn.TagStore = (*TagStore)(nil)

// TagRounds implements [cairn.TagStore].
func (s *TagStore) TagRounds(ctx context.Context, sessionID string, seqs []int, engagementID, frameID string) (err error) {
	defer s.db.explain(&err)
	if engagementID == "" {
		return cairn.Errorf(cairn.EINVALID, "Engagement ID required.")
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := checkRounds(ctx, tx, sessionID, seqs); err != nil {
		return err
	}
	for _, seq := range seqs {
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO round_tags (session_id, seq, engagement_id, frame_id) VALUES (?, ?, ?, ?)
			ON CONFLICT (session_id, seq) DO UPDATE SET engagement_id = excluded.engagement_id,
				frame_id = COALESCE(NULLIF(excluded.frame_id, ''), frame_id)`, sessionID, seq, engagementID, frameID); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// UntagRounds implements [cairn.TagStore].
func (s *TagStore) UntagRounds(ctx context.Context, sessionID string, seqs []int) (err error) {
	defer s.db.explain(&err)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := checkRounds(ctx, tx, sessionID, nil); err != nil {
		return err
	}
	for _, seq := range seqs {
		if _, err := tx.ExecContext(ctx, `UPDATE round_tags SET engagement_id = '' WHERE session_id = ? AND seq = ?`, sessionID, seq); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM round_tags WHERE session_id = ? AND engagement_id = '' AND frame_id = ''`, sessionID); err != nil {
		return err
	}
	return tx.Commit()
}

// checkRounds returns ENOTFOUND unless the session and each of its rounds
// seqs exist.
func checkRounds(ctx context.Context, tx *Tx, sessionID string, seqs []int) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE id = ?`, sessionID).Scan(&n); err != nil {
		return err
	} else if n == 0 {
		return cairn.Errorf(cairn.ENOTFOUND, "No session %q.", sessionID)
	}
	for _, seq := range seqs {
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM rounds WHERE session_id = ? AND seq = ?`, sessionID, seq).Scan(&n); err != nil {
			return err
		} else if n == 0 {
			return cairn.Errorf(cairn.ENOTFOUND, "Session %s has no round %d.", sessionID, seq)
		}
	}
	return nil
}

// autoTag tags the rounds of an inscription that have no tag yet.
func autoTag(ctx context.Context, tx *Tx, in *cairn.Inscription) error {
	tags := in.AutoTags()
	if len(tags) == 0 {
		return nil
	}
	stmt, err := tx.prepared(ctx, `
		INSERT INTO round_tags (session_id, seq, engagement_id, frame_id) VALUES (?, ?, ?, ?)
		ON CONFLICT (session_id, seq) DO NOTHING`)
	if err != nil {
		return err
	}
	for _, t := range tags {
		if _, err := stmt.ExecContext(ctx, t.SessionID, t.Seq, t.EngagementID, t.FrameID); err != nil {
			return err
		}
	}
	return nil
}
