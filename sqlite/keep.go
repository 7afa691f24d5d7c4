package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/cairn-dev/cairn"
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
	defer tx.Rollback()
	var v string
	err = tx.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = ?`, keepDaysSetting).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
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
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if days == 0 {
		_, err = tx.ExecContext(ctx, `DELETE FROM settings WHERE name = ?`, keepDaysSetting)
	} else {
		_, err = tx.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES (?, ?)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, keepDaysSetting, strconv.Itoa(days))
	}
	if err != nil {
		return err
	}
	return tx.Commit()
}

// dropSession deletes everything inscribed of a session but its blocks
// ([retire]) and its number, which the deletion of hidden blocks needs.
var dropSession = []string{
	`DELETE FROM staged_blocks WHERE session_num = ` + numOf + ` AND token != ?2`,
	`DELETE FROM messages WHERE session_num = ` + numOf,
	`DELETE FROM round_tags WHERE session_id = ?1`,
	`DELETE FROM rounds WHERE session_id = ?1`,
	`DELETE FROM chunks WHERE session_id = ?1`,
	`DELETE FROM relaid WHERE session_id = ?1`,
	`DELETE FROM sessions WHERE id = ?1`,
}

// DropSessions implements [cairn.KeepStore]. Each session goes in a
// transaction of its own, but for the blocks of a huge one, hidden there
// and deleted after, a part to a transaction ([retire]); what a killed
// drop left hidden the next drop deletes.
func (s *KeepStore) DropSessions(ctx context.Context, ids []string, at time.Time) (err error) {
	defer s.db.explain(&err)
	if err := s.dropLeftovers(ctx); err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.drop(ctx, id, at); err != nil {
			return err
		}
	}
	if len(ids) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := pruneLengths(ctx, tx); err != nil {
		return err
	}
	if err := pruneTerms(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

func (s *KeepStore) drop(ctx context.Context, id string, at time.Time) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE id = ?`, id).Scan(&n); err != nil || n == 0 {
		return err
	}
	old, err := retire(ctx, tx, id, 0, math.MaxInt64, false)
	if err != nil {
		return err
	}
	token := ""
	if old != nil {
		token = old.token
	}
	for _, q := range dropSession {
		if _, err := tx.ExecContext(ctx, q, id, token); err != nil {
			return err
		}
	}
	if old == nil {
		if _, err := tx.ExecContext(ctx, `DELETE FROM session_nums WHERE session_id = ?`, id); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO dropped_sessions (id, dropped_at) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET dropped_at = excluded.dropped_at`, id, formatTime(at)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil || old == nil {
		return err
	}
	(&InscriptionStore{db: s.db}).dropRetired(ctx, old)
	return s.forgetNum(ctx, id)
}

// forgetNum deletes dropped session id's number once nothing names it:
// no staged range left (the deletion of hidden blocks reads it) and the
// session not imported again meanwhile.
func (s *KeepStore) forgetNum(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM session_nums WHERE session_id = ?1
		AND NOT EXISTS (SELECT 1 FROM sessions WHERE id = ?1) AND NOT EXISTS (SELECT 1 FROM staged_blocks WHERE session_num = `+numOf+`)`, id); err != nil {
		return err
	}
	return tx.Commit()
}

// dropLeftovers deletes what killed drops left hidden: every staged block
// of the sessions no longer stored (staged_blocks read first, as
// [InscriptionStore.Sweep] reads it).
func (s *KeepStore) dropLeftovers(ctx context.Context) error {
	rtx, err := s.db.read(ctx)
	if err != nil {
		return err
	}
	gone, err := readColumn[string](ctx, rtx, `SELECT DISTINCT n.session_id FROM staged_blocks p CROSS JOIN session_nums n ON n.num = p.session_num
		WHERE NOT EXISTS (SELECT 1 FROM sessions WHERE id = n.session_id)`)
	rtx.Rollback()
	if err != nil {
		return err
	}
	ins := &InscriptionStore{db: s.db}
	for _, id := range gone {
		if err := ins.dropRanges(ctx, id, "", stageGap, nil); err != nil {
			return err
		}
		if err := s.forgetNum(ctx, id); err != nil {
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
	defer tx.Rollback()
	var at string
	err = tx.QueryRowContext(ctx, `SELECT dropped_at FROM dropped_sessions
		WHERE id = ? AND NOT EXISTS (SELECT 1 FROM sessions WHERE sessions.id = dropped_sessions.id)`, id).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, cairn.Errorf(cairn.ENOTFOUND, "Session %s was never dropped.", id)
	} else if err != nil {
		return time.Time{}, err
	}
	return parseTime(at), nil
}
