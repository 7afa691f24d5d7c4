package sqlite

import (
	"context"
	"strings"
	"unicode"

	"cairn"
)

// Searcher implements [cairn.Searcher] with FTS5.
type Searcher struct{ db *DB }

// NewSearcher returns a Searcher over db.
func NewSearcher(db *DB) *Searcher { return &Searcher{db: db} }

var _ cairn.Searcher = (*Searcher)(nil)

// Search implements [cairn.Searcher]. Words are matched as FTS5 tokens (a
// trailing '*' matches a prefix); every word must occur in the block.
func (s *Searcher) Search(ctx context.Context, q cairn.SearchQuery) ([]*cairn.Hit, error) {
	match := ftsQuery(q.Text)
	if match == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "Search query required.")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	where, args := []string{"blocks_fts MATCH ?"}, []any{match}
	if q.SessionID != "" {
		where, args = append(where, "b.session_id = ?"), append(args, q.SessionID)
	}
	if q.Project != "" {
		where, args = append(where, "s.project = ?"), append(args, q.Project)
	}
	if !q.Since.IsZero() {
		where, args = append(where, "b.timestamp >= ?"), append(args, formatTime(q.Since))
	}
	if !q.Until.IsZero() {
		where, args = append(where, "b.timestamp < ?"), append(args, formatTime(q.Until))
	}
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// Rank first, without snippets: SQLite computes every selected column
	// of every match before sorting, and a snippet costs far more than a
	// rank. Several blocks of one round may match; fetch more than asked
	// and keep each round's best.
	rows, err := tx.QueryContext(ctx, `
		SELECT blocks_fts.rowid, b.session_id, s.project, b.round_seq, b.timestamp, b.kind, bm25(blocks_fts) AS rank
		FROM blocks_fts JOIN blocks b ON b.id = blocks_fts.rowid JOIN sessions s ON s.id = b.session_id
		WHERE `+strings.Join(where, " AND ")+` ORDER BY rank LIMIT ?`, append(args, limit*4)...)
	if err != nil {
		return nil, err
	}
	seen := map[[2]any]bool{}
	var hits []*cairn.Hit
	var ids []int64
	for rows.Next() {
		var h cairn.Hit
		var id int64
		var ts string
		if err := rows.Scan(&id, &h.SessionID, &h.Project, &h.RoundSeq, &ts, &h.Kind, &h.Rank); err != nil {
			rows.Close()
			return nil, err
		}
		key := [2]any{h.SessionID, h.RoundSeq}
		if seen[key] || len(hits) == limit {
			continue
		}
		seen[key] = true
		h.Timestamp = parseTime(ts)
		hits = append(hits, &h)
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, h := range hits {
		err := tx.QueryRowContext(ctx, `SELECT snippet(blocks_fts, 0, char(2), char(3), '…', 16) FROM blocks_fts
			WHERE blocks_fts MATCH ? AND rowid = ?`, match, ids[i]).Scan(&h.Snippet)
		if err != nil {
			return nil, err
		}
	}
	return hits, nil
}

// ftsQuery turns words into an FTS5 query of quoted tokens, so that no
// character of user input is read as FTS5 syntax.
func ftsQuery(text string) string {
	var terms []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '*' && r != '_' }) {
		prefix := strings.HasSuffix(w, "*")
		w = strings.Trim(w, "*")
		if w == "" {
			continue
		}
		t := `"` + w + `"`
		if prefix {
			t += "*"
		}
		terms = append(terms, t)
	}
	return strings.Join(terms, " ")
}
