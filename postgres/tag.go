package postgres

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
	return s.db.write(ctx, func(tx *Tx) error {
		if err := checkRounds(ctx, tx, sessionID, seqs); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO round_tags (session_id, seq, engagement_id, frame_id) SELECT $1, seq, $3, $4 FROM unnest($2::int[]) AS seq
			ON CONFLICT (session_id, seq) DO UPDATE SET engagement_id = excluded.engagement_id,
				frame_id = COALESCE(NULLIF(excluded.frame_id, ''), round_tags.frame_id)`, sessionID, ints(seqs), engagementID, frameID)
		return err
	})
}

// UntagRounds implements [cairn.TagStore].
func (s *TagStore) UntagRounds(ctx context.Context, sessionID string, seqs []int) (err error) {
	defer s.db.explain(&err)
	return s.db.write(ctx, func(tx *Tx) error {
		if err := checkRounds(ctx, tx, sessionID, nil); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE round_tags SET engagement_id = '' WHERE session_id = $1 AND seq = ANY($2::int[])`,
			sessionID, ints(seqs)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM round_tags WHERE session_id = $1 AND engagement_id = '' AND frame_id = ''`, sessionID)
		return err
	})
}

// checkRounds returns ENOTFOUND unless the session and each of its rounds
// seqs exist.
func checkRounds(ctx context.Context, tx *Tx, sessionID string, seqs []int) error {
	var n int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM sessions WHERE id = $1`, sessionID).Scan(&n); err != nil {
		return err
	} else if n == 0 {
		return cairn.Errorf(cairn.ENOTFOUND, "No session %q.", sessionID)
	}
	for _, seq := range seqs {
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM rounds WHERE session_id = $1 AND seq = $2`, sessionID, seq).Scan(&n); err != nil {
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
	seqs := make([]int, len(tags))
	engagements, frames := make([]string, len(tags)), make([]string, len(tags))
	for i, t := range tags {
		seqs[i], engagements[i], frames[i] = t.Seq, t.EngagementID, t.FrameID
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO round_tags (session_id, seq, engagement_id, frame_id)
		SELECT $1, t.seq, t.engagement_id, t.frame_id FROM unnest($2::int[], $3::text[], $4::text[]) AS t (seq, engagement_id, frame_id)
		ON CONFLICT (session_id, seq) DO NOTHING`, in.Session.ID, ints(seqs), engagements, frames)
	return err
}

// ints converts seqs for an int[] parameter.
func ints(seqs []int) []int32 {
	out := make([]int32, len(seqs))
	for i, s := range seqs {
		out[i] = int32(s)
	}
	return out
}
