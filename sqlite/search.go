package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"math"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"

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
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	match, phrases, words, err := ftsQuery(ctx, tx, q.Text)
	if err != nil {
		return nil, err
	}
	if match == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "Nothing to search for in %q: a query is words (letters or digits; a trailing * matches a prefix).", q.Text)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	span, args, err := sessionSpan(ctx, tx, q.SessionID, match)
	if err != nil || args == nil {
		return nil, err
	}
	ranked, err := rankMatches(ctx, tx, span, append(args, rankWindow))
	if err != nil {
		return nil, err
	}
	cond, condArgs := searchFilter(q)
	seen := map[[3]any]bool{}
	var hits []*cairn.Hit
	var ids []int64
	read := map[int64]string{}      // block texts the phrase checks read whole
	texts := map[int64]*blockText{} // where the others' are, from the rows that looked them up
	// Each batch is the rounds still missing times a factor that doubles
	// when a batch falls short: one batch when every match passes the
	// filters, a handful when most do not.
	for grow := 1; len(hits) < limit; grow *= 2 {
		n := min((limit-len(hits))*grow, len(ranked))
		batch := ranked[:n]
		if ranked = ranked[n:]; len(batch) == 0 {
			break
		}
		found, err := lookupHits(ctx, tx, batch, cond, condArgs, texts)
		if err != nil {
			return nil, err
		}
		if err := holdPhrases(ctx, tx, phrases, found, read); err != nil {
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
	shown := make([]*blockText, len(ids))
	for i, id := range ids {
		shown[i] = texts[id]
		if text, ok := read[id]; ok {
			shown[i].block.Content, shown[i].span = cairn.TruncateChars(text, snippetBytes), sql.NullInt64{}
		}
	}
	if err := readTexts(ctx, tx, shown, snippetBytes); err != nil {
		return nil, err
	}
	for i, h := range hits {
		h.Snippet = cairn.Snippet(cairn.IndexText(h.Kind, h.Tool, shown[i].block.Content), words, 24)
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
	texts, err := blockTexts(ctx, tx, ids, math.MaxInt32) // all of it: the index holds up to cairn.IndexChars
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

// holdPhrases drops from found the blocks whose text does not hold the
// phrases of the FTS5 query phrases ("" for none: every block holds
// them), which the index, without positions, could not check. It keeps
// the texts it read in read, by block id, for the snippets.
func holdPhrases(ctx context.Context, tx *Tx, phrases string, found map[int64]*cairn.Hit, read map[int64]string) error {
	if phrases == "" || len(found) == 0 {
		return nil
	}
	args := make([]any, 0, len(found))
	for id := range found {
		args = append(args, id)
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+viewedColumns+`
		WHERE b.id IN (?`+strings.Repeat(", ?", len(args)-1)+`) ORDER BY b.id`, args...)
	if err != nil {
		return err
	}
	blocks, err := viewedBlocks(ctx, tx, rows, nil)
	if err != nil {
		return err
	}
	texts := make(map[int64]string, len(blocks))
	for _, b := range blocks {
		texts[b.ID] = cairn.SearchText(cairn.IndexText(b.Kind, b.ToolName, b.Content))
		read[b.ID] = b.Content
	}
	ok, err := phraseMatches(ctx, phrases, texts)
	if err != nil {
		return err
	}
	for id := range found {
		if !ok[id] {
			delete(found, id)
		}
	}
	return nil
}

// A candidate is a matching block, by id, with its rank (lower is
// better).
type candidate struct {
	id   int64
	rank float64
}

// rankMatches returns the newest rankWindow blocks of the index that
// match args (the FTS5 query, span's bounds, the window), best first.
// The index keeps no positions, so FTS5's bm25 cannot count a word's
// occurrences (it gives every block 0): each block is ranked by bm25
// with every word found once, which leaves its length ([blockLengths]):
// a block that is about the words (short) before one that mentions them
// in passing (long). Every block matches every word, so the words'
// weights (idf) are the same for all and left out.
func rankMatches(ctx context.Context, tx *Tx, span string, args []any) ([]candidate, error) {
	rows, err := tx.QueryContext(ctx, `SELECT rowid FROM blocks_fts WHERE blocks_fts MATCH ?`+span+` ORDER BY rowid DESC LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	lengths, err := blockLengths(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, n := range lengths {
		total += n
	}
	const k1, b = 1.2, 0.75
	avg := max(float64(total)/float64(max(len(ids), 1)), 1)
	cands := make([]candidate, len(ids))
	for i, id := range ids {
		cands[i] = candidate{id: id, rank: -(k1 + 1) / (1 + k1*(1-b+b*float64(lengths[i])/avg))}
	}
	// Ids are unique, so the order is total: no need for a stable sort
	// (sort.SliceStable's reflection took a seventh of a search).
	slices.SortFunc(cands, func(a, b candidate) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return cmp.Compare(b.id, a.id)
	})
	return cands, nil
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
	if len(q.Kinds) > 0 {
		where = append(where, "b.kind IN (?"+strings.Repeat(", ?", len(q.Kinds)-1)+")")
		for _, k := range q.Kinds {
			args = append(args, kindCode(k))
		}
	}
	if q.Tool != "" {
		where, args = append(where, "b.tool_name = ?"), append(args, q.Tool)
	}
	if q.NoSurgery && q.SessionID == "" {
		// A surgical session's blocks written after the store first held
		// it are the work of whoever resumed it ([cairn.SearchQuery]).
		where = append(where, "(s.lineage NOT IN ('surgery', 'revive') OR b.timestamp > unixepoch(s.created_at) * 1000 + CAST(substr(s.created_at, 21, 3) AS INTEGER))")
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
// hits by block id (without rank or snippet), and adds to texts where each
// one's text is: the start of a snippet's worth of it (snippetBytes), or
// its view, from the same rows, which a later query would read again.
func lookupHits(ctx context.Context, tx *Tx, cands []candidate, cond string, condArgs []any, texts map[int64]*blockText) (map[int64]*cairn.Hit, error) {
	args := make([]any, 0, len(cands)+len(condArgs)+1)
	args = append(args, snippetBytes)
	for _, c := range cands {
		args = append(args, c.id)
	}
	rows, err := tx.QueryContext(ctx, `
		SELECT b.id, n.session_id, s.project, b.round_seq, b.step, b.timestamp, b.kind, b.tool_name, b.line_no, substr(b.content, 1, ?), b.span
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
		t := &blockText{}
		if err := rows.Scan(&id, &h.SessionID, &h.Project, &h.RoundSeq, &h.Step, &ts, codedKind{&h.Kind}, &h.Tool, &t.block.LineNo, &t.block.Content, &t.span); err != nil {
			return nil, err
		}
		t.block.ID, t.block.SessionID = id, h.SessionID
		texts[id] = t
		h.Timestamp = parseStamp(ts)
		h.Ref = cairn.StepRef(h.RoundSeq, h.Step)
		found[id] = &h
	}
	return found, rows.Err()
}

// countWindow is how many of a query's most recently inscribed matches
// CountHits reads at most: a word in most blocks of a large store is
// counted in the time a search takes, and said to have more.
const countWindow = 20000

var _ cairn.SearchCounter = (*Searcher)(nil)

// CountHits implements [cairn.SearchCounter]: the distinct rounds (steps)
// of the newest countWindow matching blocks that pass q's filters, up to
// max; with phrases (a quoted one, a word the tokenizer splits), of the
// newest phraseCountWindow, each block's text checked as Search checks it.
func (s *Searcher) CountHits(ctx context.Context, q cairn.SearchQuery, max int) (_ int, _ bool, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return 0, false, err
	}
	defer tx.Rollback()
	match, phrases, _, err := ftsQuery(ctx, tx, q.Text)
	if err != nil {
		return 0, false, err
	}
	if match == "" {
		return 0, false, cairn.Errorf(cairn.EINVALID, "Nothing to search for in %q: a query is words (letters or digits; a trailing * matches a prefix).", q.Text)
	}
	span, args, err := sessionSpan(ctx, tx, q.SessionID, match)
	if err != nil || args == nil {
		return 0, false, err
	}
	per := "b.session_num, b.round_seq"
	if q.Steps {
		per += ", b.step"
	}
	matches := `SELECT rowid AS id FROM blocks_fts WHERE blocks_fts MATCH ?` + span + ` ORDER BY rowid DESC LIMIT ?`
	args = append(args, countWindow)
	cond, condArgs := searchFilter(q)
	var n int
	if phrases != "" {
		var more bool
		if n, more, err = countPhrased(ctx, tx, `SELECT f.id, `+per+` FROM (`+matches+`) f
		JOIN blocks b ON b.id = f.id JOIN session_nums n ON n.num = b.session_num JOIN sessions s ON s.id = n.session_id
		WHERE `+unstaged+cond+` LIMIT ?`, append(append(slices.Clone(args), condArgs...), phraseCountWindow), phrases, max); err != nil || more {
			return n, more, err
		}
	} else if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT DISTINCT `+per+` FROM (`+matches+`) f
		JOIN blocks b ON b.id = f.id JOIN session_nums n ON n.num = b.session_num JOIN sessions s ON s.id = n.session_id
		WHERE `+unstaged+cond+` LIMIT ?)`, append(append(slices.Clone(args), condArgs...), max+1)...).Scan(&n); err != nil {
		return 0, false, err
	}
	if n > max {
		return max, true, nil
	}
	var read int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (`+matches+`)`, args...).Scan(&read); err != nil {
		return 0, false, err
	}
	return n, read >= countWindow, nil
}

// phraseCountWindow is how many of a query's newest matching blocks that
// pass its filters CountHits reads the texts of to check its phrases.
const phraseCountWindow = 5000

// countPhrased counts the distinct rounds (steps) of the blocks query
// returns (id, then the round's or step's columns) whose text holds the
// FTS5 query phrases, up to max, a batch of blocks at a time; more when
// it stopped at max or the query at phraseCountWindow.
func countPhrased(ctx context.Context, tx *Tx, query string, args []any, phrases string, max int) (int, bool, error) {
	type key [3]int64
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, false, err
	}
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return 0, false, err
	}
	var ids []int64
	var keys []key
	for rows.Next() {
		var id int64
		var k key
		if err := rows.Scan([]any{&id, &k[0], &k[1], &k[2]}[:len(cols)]...); err != nil {
			rows.Close()
			return 0, false, err
		}
		ids, keys = append(ids, id), append(keys, k)
	}
	if err := rows.Close(); err != nil {
		return 0, false, err
	}
	counted := map[key]bool{}
	const batch = 500
	for from := 0; from < len(ids); from += batch {
		found := map[int64]*cairn.Hit{}
		for i := from; i < min(from+batch, len(ids)); i++ {
			if !counted[keys[i]] {
				found[ids[i]] = nil
			}
		}
		if err := holdPhrases(ctx, tx, phrases, found, map[int64]string{}); err != nil {
			return 0, false, err
		}
		for i := from; i < min(from+batch, len(ids)); i++ {
			if _, ok := found[ids[i]]; ok {
				counted[keys[i]] = true
			}
		}
		if len(counted) > max {
			return max, true, nil
		}
	}
	return len(counted), len(ids) >= phraseCountWindow, nil
}

// sessionSpan returns the condition and arguments that keep an FTS5
// query (match) to the blocks of session id, which lie between its first
// and last block id, read as a range: a window of the newest matches is
// then the session's, not the store's. With id "" the condition is ""; a
// session without blocks returns nil arguments.
func sessionSpan(ctx context.Context, tx *Tx, id, match string) (string, []any, error) {
	if id == "" {
		return "", []any{match}, nil
	}
	var lo, hi sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT min(id), max(id) FROM blocks WHERE session_num = `+numOf, id).Scan(&lo, &hi); err != nil || !lo.Valid {
		return "", nil, err
	}
	return " AND rowid BETWEEN ? AND ?", []any{match, lo.Int64, hi.Int64}, nil
}

// snippetBytes bounds the text read to cut a snippet from.
const snippetBytes = 64 << 10

// rankWindow is how many of a query's most recently inscribed matches are
// ranked by relevance.
const rankWindow = 2000

// ftsVarint reads the varint at the start of b as FTS5 writes it
// (SQLite's: big-endian groups of 7 bits, the ninth byte whole).
func ftsVarint(b []byte) uint64 {
	var v uint64
	for i, c := range b {
		if i == 8 {
			return v<<8 | uint64(c)
		}
		v = v<<7 | uint64(c&0x7f)
		if c < 0x80 {
			break
		}
	}
	return v
}

// ftsQuery turns words into an FTS5 query of quoted tokens ANDed, so
// that no character of user input is read as FTS5 syntax, and returns
// the words as matched ([cairn.PrefixWord]). The tokenizer stems the
// query's tokens as it stemmed the blocks' (porter), so a prefix is a
// stem's, searched as the terms it begins where the index's terms are
// few ([prefixQuery], in tx). A word the tokenizer splits (a run of CJK
// characters, snake_case) is searched as its tokens, each a word, and
// phrases is the FTS5 query of such words as phrases, and of the query's
// quoted phrases ([cairn.QueryPhrases]), which the blocks found must
// match too ("" when there is none).
func ftsQuery(ctx context.Context, tx *Tx, text string) (match, phrases string, words []string, err error) {
	words = cairn.QueryWords(text)
	var terms, split []string
	for i, w := range words {
		w = cairn.PrefixWord(w)
		words[i] = w
		prefix, isPrefix := strings.CutSuffix(w, "*")
		tokens, err := wordTokens(ctx, cairn.SearchText(strings.ReplaceAll(prefix, "*", " ")))
		if err != nil {
			return "", "", nil, err
		}
		if len(tokens) == 0 {
			continue
		}
		star := ""
		if isPrefix {
			star = "*"
		}
		for j, t := range tokens {
			term := `"` + t + `"`
			if j == len(tokens)-1 && isPrefix {
				if term, err = prefixQuery(ctx, tx, t); err != nil {
					return "", "", nil, err
				}
			}
			terms = append(terms, term)
		}
		if len(tokens) > 1 {
			split = append(split, `"`+strings.Join(tokens, " ")+`"`+star)
		}
	}
	for _, p := range cairn.QueryPhrases(text) {
		tokens, err := wordTokens(ctx, cairn.SearchText(p))
		if err != nil {
			return "", "", nil, err
		}
		if len(tokens) > 1 {
			split = append(split, `"`+strings.Join(tokens, " ")+`"`)
		}
	}
	return strings.Join(terms, " AND "), strings.Join(split, " "), words, nil
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
