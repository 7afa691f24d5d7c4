package postgres

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/cairn-dev/cairn"

	"github.com/jackc/pgx/v5"
)

// KeepStore implements [cairn.KeepStore].
type KeepStore struct{ db *DB }

// NewKeepStore returns a KeepStore over db.
func NewKeepStore(db *DB) *KeepStore { return &KeepStore{db: db} }

var _ cairn.KeepStore = (*KeepStore)(nil)

// keepDaysSetting names the keep setting in the settings table.
const keepDaysSetting = "keep_days"

// KeepDays implements [cairn.KeepStore].
func (s *KeepStore) KeepDays(ctx context.Context) (_ int, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	var v string
	err = tx.QueryRow(ctx, `SELECT value FROM settings WHERE name = $1`, keepDaysSetting).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

// SetKeepDays implements [cairn.KeepStore].
func (s *KeepStore) SetKeepDays(ctx context.Context, days int) (err error) {
	defer s.db.explain(&err)
	if days < 0 {
		return cairn.Errorf(cairn.EINVALID, "Keep setting must be 0 (keep everything) or a number of days, got %d.", days)
	}
	return s.db.write(ctx, func(tx *Tx) error {
		if days == 0 {
			_, err := tx.Exec(ctx, `DELETE FROM settings WHERE name = $1`, keepDaysSetting)
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, keepDaysSetting, strconv.Itoa(days))
		return err
	})
}

// dropSession deletes everything inscribed of a session.
var dropSession = []string{
	`DELETE FROM blocks WHERE session_id = $1`,
	`DELETE FROM messages WHERE session_id = $1`,
	`DELETE FROM round_tags WHERE session_id = $1`,
	`DELETE FROM rounds WHERE session_id = $1`,
	`DELETE FROM lines WHERE session_id = $1`,
	`DELETE FROM sessions WHERE id = $1`,
}

// DropSessions implements [cairn.KeepStore].
func (s *KeepStore) DropSessions(ctx context.Context, ids []string, at time.Time) (err error) {
	defer s.db.explain(&err)
	for _, id := range ids {
		err := s.db.write(ctx, func(tx *Tx) error {
			var n int
			if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM sessions WHERE id = $1`, id).Scan(&n); err != nil || n == 0 {
				return err
			}
			for _, q := range dropSession {
				if _, err := tx.Exec(ctx, q, id); err != nil {
					return err
				}
			}
			_, err := tx.Exec(ctx, `INSERT INTO dropped_sessions (id, dropped_at) VALUES ($1, $2)
				ON CONFLICT (id) DO UPDATE SET dropped_at = excluded.dropped_at`, id, at.UTC())
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Dropped implements [cairn.KeepStore].
func (s *KeepStore) Dropped(ctx context.Context, id string) (_ time.Time, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return time.Time{}, err
	}
	defer tx.Rollback(ctx)
	var at time.Time
	err = tx.QueryRow(ctx, `SELECT dropped_at FROM dropped_sessions d
		WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = d.id)`, id).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, cairn.Errorf(cairn.ENOTFOUND, "Session %s was never dropped.", id)
	} else if err != nil {
		return time.Time{}, err
	}
	return at.UTC(), nil
}
