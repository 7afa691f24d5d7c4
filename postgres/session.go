package postgres

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
	defer tx.Rollback(ctx)
	return findSessionByID(ctx, tx, ref)
}

// FindSessions implements [cairn.SessionStore].
func (s *SessionStore) FindSessions(ctx context.Context, filter cairn.SessionFilter) (_ []*cairn.Session, _ int, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback(ctx)
	return findSessions(ctx, tx, filter)
}

func findSessionByID(ctx context.Context, tx *Tx, ref string) (*cairn.Session, error) {
	if ref == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "Session reference required.")
	}
	// The exact match and the prefix's matches, main sessions first;
	// cairn.ResolveSessionRef picks. Ids
	// sort in byte order (COLLATE "C"), so a prefix is a range.
	rows, err := findSessionRows(ctx, tx, false, `WHERE id = $1 OR (id >= $1 AND id < $2) ORDER BY id = $1 DESC, lineage = 'subagent', id LIMIT 21`,
		ref, ref+"\uffff")
	if err != nil {
		return nil, err
	}
	return cairn.ResolveSessionRef(ref, rows)
}

func findSessions(ctx context.Context, tx *Tx, filter cairn.SessionFilter) ([]*cairn.Session, int, error) {
	var q query
	if p := filter.Project; p != "" {
		if strings.HasSuffix(p, "*") || strings.HasSuffix(p, "/") {
			p = strings.TrimSuffix(p, "*")
			q.where("project >= ? AND project < ?", p, p+"\uffff")
		} else {
			q.where("project = ?", p)
		}
	}
	if !filter.Since.IsZero() {
		q.where("ended_at >= ?", filter.Since)
	}
	if !filter.Until.IsZero() {
		// An unknown start counts as before any time, as in SQLite.
		q.where("(started_at IS NULL OR started_at < ?)", filter.Until)
	}
	if !filter.Subagents {
		q.where("lineage != 'subagent'")
	}
	if filter.NoSurgery {
		q.where("(lineage NOT IN ('surgery', 'revive') OR ended_at > created_at)")
	}
	if filter.Agent != "" {
		q.where("agent = ?", filter.Agent)
	}
	if filter.Recipe != "" {
		q.where("recipe = ? AND recipe != ''", filter.Recipe)
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM sessions `+q.cond(), q.args...).Scan(&n); err != nil {
		return nil, 0, err
	}
	tail := q.cond() + ` ORDER BY ended_at DESC NULLS LAST, id`
	if filter.Limit > 0 {
		tail += q.arg(" LIMIT ?", filter.Limit)
	}
	if filter.Offset > 0 {
		tail += q.arg(" OFFSET ?", filter.Offset)
	}
	sessions, err := findSessionRows(ctx, tx, filter.ToolCalls, tail, q.args...)
	return sessions, n, err
}

const sessionColumns = `id, agent, lineage, parent, parent_round, agent_id, project, title, version, git_branch, path,
	started_at, ended_at, src_lines, round_count, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens,
	created_at, updated_at, parents, operation, recipe,
	COALESCE(NULLIF(title, ''), (SELECT user_preview FROM rounds r WHERE r.session_id = sessions.id AND r.seq = 1), '')`

// sessionToolCalls counts a session's tool calls from the partial index
// blocks_tool_use (its WHERE repeated, so the index serves it).
const sessionToolCalls = `(SELECT COUNT(*) FROM blocks b WHERE b.session_id = sessions.id AND b.kind = 'tool-use' AND NOT b.sidechain)`

// findSessionRows returns the sessions tail selects; toolCalls counts
// their tool calls.
func findSessionRows(ctx context.Context, tx *Tx, toolCalls bool, tail string, args ...any) ([]*cairn.Session, error) {
	calls := "0"
	if toolCalls {
		calls = sessionToolCalls
	}
	rows, err := tx.Query(ctx, `SELECT `+sessionColumns+`, `+calls+` FROM sessions `+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Session
	for rows.Next() {
		var s cairn.Session
		if err := rows.Scan(&s.ID, &s.Agent, &s.Lineage, &s.Parent, &s.ParentRound, &s.AgentID, &s.Project, &s.Title,
			&s.Version, &s.GitBranch, &s.Path, scanTime{&s.StartedAt}, scanTime{&s.EndedAt}, &s.Lines, &s.Rounds,
			&s.Usage.Input, &s.Usage.Output, &s.Usage.CacheRead, &s.Usage.CacheCreation,
			scanTime{&s.CreatedAt}, scanTime{&s.UpdatedAt}, &s.Parents, &s.Operation, &s.Recipe, &s.Title, &s.ToolCalls); err != nil {
			return nil, err
		}
		if len(s.Parents) == 0 {
			s.Parents = nil
		}
		out = append(out, &s)
	}
	return out, rows.Err()
}

// SetLineage implements [cairn.SessionStore].
func (s *SessionStore) SetLineage(ctx context.Context, id, lineage string, parents []string, operation, recipe string) (err error) {
	defer s.db.explain(&err)
	parent := ""
	if len(parents) > 0 {
		parent = parents[0]
	}
	if parents == nil {
		parents = []string{}
	}
	return s.db.write(ctx, func(tx *Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE sessions SET lineage = $1, parent = $2, parents = $3, operation = $4, recipe = $5, updated_at = $6 WHERE id = $7`,
			lineage, parent, parents, operation, recipe, tx.now, id)
		if err != nil {
			return err
		} else if tag.RowsAffected() == 0 {
			return cairn.Errorf(cairn.ENOTFOUND, "No session %q.", id)
		}
		return nil
	})
}
