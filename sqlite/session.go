package sqlite

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn"
)

// SessionStore implements [cairn.SessionStore].
type SessionStore struct{ db *DB }

// NewSessionStore returns a SessionStore over db.
func NewSessionStore(db *DB) *SessionStore { return &SessionStore{db: db} }

var _ cairn.SessionStore = (*SessionStore)(nil)

// FindSessionByID implements [cairn.SessionStore].
func (s *SessionStore) FindSessionByID(ctx context.Context, ref string) (_ *cairn.Session, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return findSessionByID(ctx, tx, ref)
}

// FindSessions implements [cairn.SessionStore].
func (s *SessionStore) FindSessions(ctx context.Context, filter cairn.SessionFilter) (_ []*cairn.Session, _ int, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	return findSessions(ctx, tx, filter)
}

func findSessionByID(ctx context.Context, tx *Tx, ref string) (*cairn.Session, error) {
	if ref == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "Session reference required.")
	}
	// The exact match and the prefix's matches, main sessions first;
	// cairn.ResolveSessionRef picks.
	rows, err := findSessionRows(ctx, tx, false, `WHERE id = ? OR (id >= ? AND id < ?) ORDER BY id = ? DESC, lineage = 'subagent', id LIMIT 21`,
		ref, ref, ref+"\uffff", ref)
	if err != nil {
		return nil, err
	}
	return cairn.ResolveSessionRef(ref, rows)
}

func findSessions(ctx context.Context, tx *Tx, filter cairn.SessionFilter) ([]*cairn.Session, int, error) {
	where, args := []string{"1 = 1"}, []any{}
	if p := filter.Project; p != "" {
		if strings.HasSuffix(p, "*") || strings.HasSuffix(p, "/") {
			p = strings.TrimSuffix(p, "*")
			where, args = append(where, "project >= ? AND project < ?"), append(args, p, p+"\uffff")
		} else {
			where, args = append(where, "project = ?"), append(args, p)
		}
	}
	if !filter.Since.IsZero() {
		where, args = append(where, "ended_at >= ?"), append(args, formatTime(filter.Since))
	}
	if !filter.Until.IsZero() {
		where, args = append(where, "started_at < ?"), append(args, formatTime(filter.Until))
	}
	if !filter.Subagents {
		where = append(where, "lineage != 'subagent'")
	}
	if filter.NoSurgery {
		where = append(where, "(lineage NOT IN ('surgery', 'revive') OR ended_at > created_at)")
	}
	if filter.Agent != "" {
		where, args = append(where, "agent = ?"), append(args, filter.Agent)
	}
	if filter.Recipe != "" {
		where, args = append(where, "recipe = ? AND recipe != ''"), append(args, filter.Recipe)
	}
	cond := "WHERE " + strings.Join(where, " AND ")
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions `+cond, args...).Scan(&n); err != nil {
		return nil, 0, err
	}
	limit := filter.Limit
	if limit <= 0 {
		limit = -1
	}
	sessions, err := findSessionRows(ctx, tx, filter.ToolCalls, cond+` ORDER BY ended_at DESC, id LIMIT ? OFFSET ?`, append(args, limit, filter.Offset)...)
	return sessions, n, err
}

const sessionColumns = `id, agent, lineage, parent, parent_round, agent_id, project, title, version, git_branch, path,
	started_at, ended_at, src_lines, round_count, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens,
	created_at, updated_at, parents, operation, recipe,
	COALESCE(NULLIF(title, ''), (SELECT user_preview FROM rounds r WHERE r.session_id = sessions.id AND r.seq = 1), '')`

// sessionToolCalls counts a session's tool calls from the partial index
// blocks_tool_use (its WHERE repeated, so the index serves it; 4 is
// kindToolUse).
const sessionToolCalls = `(SELECT COUNT(*) FROM blocks b WHERE b.session_num = (SELECT num FROM session_nums WHERE session_id = sessions.id) AND b.kind = 4 AND b.sidechain = 0 AND ` + unstaged + `)`

// findSessionRows returns the sessions tail selects; toolCalls counts
// their tool calls.
func findSessionRows(ctx context.Context, tx *Tx, toolCalls bool, tail string, args ...any) ([]*cairn.Session, error) {
	calls := "0"
	if toolCalls {
		calls = sessionToolCalls
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+sessionColumns+`, `+calls+` FROM sessions `+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Session
	for rows.Next() {
		var s cairn.Session
		var started, ended, created, updated, title, parents string
		if err := rows.Scan(&s.ID, &s.Agent, &s.Lineage, &s.Parent, &s.ParentRound, &s.AgentID, &s.Project, &s.Title,
			&s.Version, &s.GitBranch, &s.Path, &started, &ended, &s.Lines, &s.Rounds,
			&s.Usage.Input, &s.Usage.Output, &s.Usage.CacheRead, &s.Usage.CacheCreation, &created, &updated, &parents, &s.Operation, &s.Recipe, &title, &s.ToolCalls); err != nil {
			return nil, err
		}
		s.Title = title
		if parents != "" {
			s.Parents = strings.Split(parents, ",")
		}
		s.StartedAt, s.EndedAt = parseTime(started), parseTime(ended)
		s.CreatedAt, s.UpdatedAt = parseTime(created), parseTime(updated)
		out = append(out, &s)
	}
	return out, rows.Err()
}

// SetLineage implements [cairn.SessionStore].
func (s *SessionStore) SetLineage(ctx context.Context, id, lineage string, parents []string, operation, recipe string) (err error) {
	defer s.db.explain(&err)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	parent := ""
	if len(parents) > 0 {
		parent = parents[0]
	}
	res, err := tx.ExecContext(ctx, `UPDATE sessions SET lineage = ?, parent = ?, parents = ?, operation = ?, recipe = ?, updated_at = ? WHERE id = ?`,
		lineage, parent, strings.Join(parents, ","), operation, recipe, formatTime(tx.now), id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return cairn.Errorf(cairn.ENOTFOUND, "No session %q.", id)
	}
	return tx.Commit()
}
