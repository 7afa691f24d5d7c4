package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
	"strings"

	"cairn"

	modernc "modernc.org/sqlite"
)

// Searcher implements [cairn.Searcher] with FTS5.
type Searcher struct{ db *DB }

// NewSearcher returns a Searcher over db.
func NewSearcher(db *DB) *Searcher { return &Searcher{db: db} }

var _ cairn.Searcher = (*Searcher)(nil)

// Search implements [cairn.Searcher]. Words are matched as FTS5 tokens,
// stemmed, a word of three characters or more as a prefix too
// ([cairn.PrefixWord]); every word must occur in the block.
//
// Ranking a word found in half the store would cost tens of milliseconds,
// so only the rankWindow most recently inscribed matches are ranked, from
// the index alone. Their blocks are then read best first, a few at a time,
// until limit rounds pass the filters: each is a random read in the
// largest table, and a search shows twenty. Several blocks of one round
// may match; each round (each step with q.Steps) keeps its best.
func (s *Searcher) Search(ctx context.Context, q cairn.SearchQuery) (_ []*cairn.Hit, err error) {
	defer s.db.explain(&err)
	match, words := ftsQuery(q.Text)
	if match == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "Nothing to search for in %q: a query is words (letters or digits; a trailing * matches a prefix).", q.Text)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// A session's blocks lie between its first and last id, which FTS5
	// reads as a range: the window is then the session's own matches, not
	// the store's newest, which may all be elsewhere.
	span, args := "", []any{match}
	if q.SessionID != "" {
		var lo, hi sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT min(id), max(id) FROM blocks WHERE session_num = `+numOf, q.SessionID).Scan(&lo, &hi); err != nil || !lo.Valid {
			return nil, err
		}
		span, args = " AND rowid BETWEEN ? AND ?", append(args, lo.Int64, hi.Int64)
	}
	ranked, err := tx.QueryContext(ctx, `
		SELECT id, rank FROM (
			SELECT rowid AS id, bm25(blocks_fts) AS rank FROM blocks_fts WHERE blocks_fts MATCH ?`+span+` ORDER BY rowid DESC LIMIT ?
		) ORDER BY rank, id DESC`, append(args, rankWindow)...)
	if err != nil {
		return nil, err
	}
	defer ranked.Close()
	cond, condArgs := searchFilter(q)
	seen := map[[3]any]bool{}
	var hits []*cairn.Hit
	var ids []int64
	// Each batch is the rounds still missing times a factor that doubles
	// when a batch falls short: one batch when every match passes the
	// filters, a handful when most do not.
	for grow := 1; len(hits) < limit; grow *= 2 {
		var batch []candidate
		for len(batch) < (limit-len(hits))*grow && ranked.Next() {
			var c candidate
			if err := ranked.Scan(&c.id, &c.rank); err != nil {
				return nil, err
			}
			batch = append(batch, c)
		}
		if len(batch) == 0 {
			break
		}
		found, err := lookupHits(ctx, tx, batch, cond, condArgs)
		if err != nil {
			return nil, err
		}
		if err := accept(ctx, tx, q.Accept, found); err != nil {
			return nil, err
		}
		for _, c := range batch {
			h := found[c.id]
			if h == nil || len(hits) == limit {
				continue
			}
			key := [3]any{h.SessionID, h.RoundSeq, 0}
			if q.Steps {
				key[2] = h.Step
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			h.Rank = c.rank
			hits = append(hits, h)
			ids = append(ids, c.id)
		}
	}
	if err := ranked.Err(); err != nil {
		return nil, err
	}
	texts, err := snippetTexts(ctx, tx, ids, snippetBytes)
	if err != nil {
		return nil, err
	}
	for i, h := range hits {
		h.Snippet = cairn.Snippet(cairn.IndexText(h.Kind, h.Tool, texts[ids[i]]), words, 24)
	}
	return hits, nil
}

// accept drops from found the blocks fn refuses (see
// [cairn.SearchQuery.Accept]).
func accept(ctx context.Context, tx *Tx, fn func(string) bool, found map[int64]*cairn.Hit) error {
	if fn == nil || len(found) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	texts, err := snippetTexts(ctx, tx, ids, math.MaxInt32) // all of it: the index holds up to cairn.IndexChars
	if err != nil {
		return err
	}
	for id, h := range found {
		if !fn(cairn.IndexText(h.Kind, h.Tool, texts[id])) {
			delete(found, id)
		}
	}
	return nil
}

// A candidate is a matching block, by id, with its bm25 rank (lower is
// better).
type candidate struct {
	id   int64
	rank float64
}

// searchFilter returns q's filters as an SQL condition on blocks b and
// sessions s, with its arguments.
func searchFilter(q cairn.SearchQuery) (string, []any) {
	var where []string
	var args []any
	if q.SessionID != "" {
		where, args = append(where, "b.session_num = (SELECT num FROM session_nums WHERE session_id = ?)"), append(args, q.SessionID)
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
		where, args = append(where, "b.timestamp >= ?"), append(args, stampOf(q.Since))
	}
	if !q.Until.IsZero() {
		where, args = append(where, "b.timestamp < ?"), append(args, stampOf(q.Until))
	}
	if len(where) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(where, " AND "), args
}

// lookupHits reads the blocks of cands that pass cond, in one query, as
// hits by block id (without rank or snippet).
func lookupHits(ctx context.Context, tx *Tx, cands []candidate, cond string, condArgs []any) (map[int64]*cairn.Hit, error) {
	args := make([]any, 0, len(cands)+len(condArgs))
	for _, c := range cands {
		args = append(args, c.id)
	}
	rows, err := tx.QueryContext(ctx, `
		SELECT b.id, n.session_id, s.project, b.round_seq, b.step, b.timestamp, b.kind, b.tool_name
		FROM blocks b JOIN session_nums n ON n.num = b.session_num JOIN sessions s ON s.id = n.session_id
		WHERE b.id IN (?`+strings.Repeat(", ?", len(cands)-1)+`) AND `+unstaged+cond, append(args, condArgs...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := make(map[int64]*cairn.Hit, len(cands))
	for rows.Next() {
		var h cairn.Hit
		var id int64
		var ts int64
		if err := rows.Scan(&id, &h.SessionID, &h.Project, &h.RoundSeq, &h.Step, &ts, codedKind{&h.Kind}, &h.Tool); err != nil {
			return nil, err
		}
		h.Timestamp = parseStamp(ts)
		h.Ref = cairn.StepRef(h.RoundSeq, h.Step)
		found[id] = &h
	}
	return found, rows.Err()
}

// snippetTexts reads the first n bytes of each block's text (snippetBytes
// to cut a snippet from), in one query: FTS5's snippet() costs a
// millisecond per hit for a common word, and a snippet is cut in Go from
// the start of the text. A text that views its line is read from the line.
func snippetTexts(ctx context.Context, tx *Tx, ids []int64, n int) (map[int64]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := []any{n}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := tx.QueryContext(ctx, `SELECT b.id, n.session_id, b.line_no, substr(b.content, 1, ?), b.span FROM blocks b JOIN session_nums n ON n.num = b.session_num WHERE b.id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	texts := make(map[int64]string, len(ids))
	var views []viewed
	for rows.Next() {
		b := cairn.Block{}
		var span sql.NullInt64
		if err := rows.Scan(&b.ID, &b.SessionID, &b.LineNo, &b.Content, &span); err != nil {
			return nil, err
		}
		if span.Valid {
			views = append(views, viewed{&b, span.Int64})
		}
		texts[b.ID] = b.Content
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	var buf []byte
	for _, v := range views {
		var raw []byte
		if raw, buf, err = lineRaw(ctx, tx, v.block.SessionID, v.block.LineNo, buf); err != nil {
			return nil, err
		}
		text, err := unpackView(v.span).text(raw)
		if err != nil {
			return nil, &damage{session: v.block.SessionID, first: v.block.LineNo, last: v.block.LineNo, err: fmt.Errorf("block %d's text: %w", v.block.ID, err)}
		}
		texts[v.block.ID] = cairn.TruncateChars(text, n)
	}
	return texts, nil
}

// snippetBytes bounds the text read to cut a snippet from.
const snippetBytes = 64 << 10

// rankWindow is how many of a query's most recently inscribed matches are
// ranked by relevance.
const rankWindow = 2000

// ftsQuery turns words into an FTS5 query of quoted tokens, so that no
// character of user input is read as FTS5 syntax, and returns the words as
// matched ([cairn.PrefixWord]). The tokenizer stems the query's tokens as
// it stemmed the blocks' (porter), so a prefix is a stem's.
func ftsQuery(text string) (string, []string) {
	words := cairn.QueryWords(text)
	terms := make([]string, len(words))
	for i, w := range words {
		w = cairn.PrefixWord(w)
		words[i] = w
		prefix, isPrefix := strings.CutSuffix(w, "*")
		terms[i] = `"` + strings.Join(strings.Fields(cairn.SearchText(strings.ReplaceAll(prefix, "*", " "))), " ") + `"` // CJK: a phrase of characters
		if isPrefix {
			terms[i] += "*"
		}
	}
	return strings.Join(terms, " "), words
}

// indexTextFunc is the SQL name of [cairn.SearchText] of [cairn.IndexText]
// (kind, tool name, content), registered with the driver: the search index
// is filled from the blocks table by one statement (and by migration 0009).
const indexTextFunc = "cairn_index_text"

func init() {
	modernc.MustRegisterDeterministicScalarFunction(indexTextFunc, 3, func(_ *modernc.FunctionContext, args []driver.Value) (driver.Value, error) {
		return cairn.SearchText(cairn.IndexText(kindOf(args[0]), text(args[1]), text(args[2]))), nil
	})
}

// text is an SQL argument as a string.
func text(v driver.Value) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}
