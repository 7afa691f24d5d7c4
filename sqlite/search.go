package sqlite

import (
	"context"
	"database/sql/driver"
	"strings"

	"cairn"

	modernc "modernc.org/sqlite"
)

// Searcher implements [cairn.Searcher] with FTS5.
type Searcher struct{ db *DB }

// NewSearcher returns a Searcher over db.
func NewSearcher(db *DB) *Searcher { return &Searcher{db: db} }

var _ cairn.Searcher = (*Searcher)(nil)

// Search implements [cairn.Searcher]. Words are matched as FTS5 tokens (a
// trailing '*' matches a prefix); every word must occur in the block.
func (s *Searcher) Search(ctx context.Context, q cairn.SearchQuery) ([]*cairn.Hit, error) {
	match, words := ftsQuery(q.Text)
	if match == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "Nothing to search for in %q: a query is words (letters or digits; a trailing * matches a prefix).", q.Text)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	var where []string
	var args []any
	if q.SessionID != "" {
		where, args = append(where, "b.session_id = ?"), append(args, q.SessionID)
	}
	if q.Project != "" {
		where, args = append(where, "s.project = ?"), append(args, q.Project)
	}
	if q.Agent != "" {
		where, args = append(where, "s.agent = ?"), append(args, q.Agent)
	}
	if q.NoSurgery && q.SessionID == "" {
		where = append(where, "s.lineage NOT IN ('surgery', 'revive')")
	}
	if !q.Since.IsZero() {
		where, args = append(where, "b.timestamp >= ?"), append(args, formatTime(q.Since))
	}
	if !q.Until.IsZero() {
		where, args = append(where, "b.timestamp < ?"), append(args, formatTime(q.Until))
	}
	// Ranking a word found in half the store would cost tens of
	// milliseconds, so only the rankWindow most recently inscribed matches
	// are ranked. Without filters the best are picked before the join;
	// with filters, after it. Several blocks of one round may match: fetch
	// more than asked and keep each round's best.
	window := `SELECT rowid AS id, bm25(blocks_fts) AS rank FROM blocks_fts WHERE blocks_fts MATCH ? ORDER BY rowid DESC LIMIT ?`
	cond := ""
	qargs := []any{match, rankWindow}
	if len(where) == 0 {
		window = `SELECT id, rank FROM (` + window + `) ORDER BY rank LIMIT ?`
		qargs = append(qargs, limit*4)
	} else {
		cond = "WHERE " + strings.Join(where, " AND ")
	}
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `
		SELECT f.id, b.session_id, s.project, b.round_seq, b.timestamp, b.kind, f.rank
		FROM (`+window+`) f JOIN blocks b ON b.id = f.id JOIN sessions s ON s.id = b.session_id
		`+cond+` ORDER BY f.rank, f.id DESC LIMIT ?`, append(append(qargs, args...), limit*4)...)
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
	// Snippets are cut in Go from the first snippetBytes of each hit's text,
	// read in one query: FTS5's snippet() costs a millisecond per hit for a
	// common word.
	if len(ids) == 0 {
		return hits, nil
	}
	args = []any{snippetBytes}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err = tx.QueryContext(ctx, `SELECT id, substr(content, 1, ?) FROM blocks WHERE id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	texts := make(map[int64]string, len(ids))
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			return nil, err
		}
		texts[id] = text
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, h := range hits {
		h.Snippet = cairn.Snippet(texts[ids[i]], words, 24)
	}
	return hits, nil
}

// snippetBytes bounds the text read to cut a snippet from.
const snippetBytes = 64 << 10

// rankWindow is how many of a query's most recently inscribed matches are
// ranked by relevance.
const rankWindow = 2000

// ftsQuery turns words into an FTS5 query of quoted tokens, so that no
// character of user input is read as FTS5 syntax, and returns the words.
func ftsQuery(text string) (string, []string) {
	words := cairn.QueryWords(text)
	terms := make([]string, len(words))
	for i, w := range words {
		prefix, isPrefix := strings.CutSuffix(w, "*")
		terms[i] = `"` + strings.Join(strings.Fields(cairn.SearchText(strings.ReplaceAll(prefix, "*", " "))), " ") + `"` // CJK: a phrase of characters
		if isPrefix {
			terms[i] += "*"
		}
	}
	return strings.Join(terms, " "), words
}

// searchTextFunc is the SQL name of [cairn.SearchText], registered with the
// driver: the search index is filled from the blocks table by one
// statement.
const searchTextFunc = "cairn_search_text"

func init() {
	modernc.MustRegisterDeterministicScalarFunction(searchTextFunc, 1, func(_ *modernc.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return cairn.SearchText(v), nil
		case []byte:
			return cairn.SearchText(string(v)), nil
		}
		return "", nil
	})
}
