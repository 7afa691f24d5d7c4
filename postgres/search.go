package postgres

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn"
)

// Searcher implements [cairn.Searcher] with PostgreSQL's text search.
type Searcher struct{ db *DB }

// NewSearcher returns a Searcher over db.
func NewSearcher(db *DB) *Searcher { return &Searcher{db: db} }

var _ cairn.Searcher = (*Searcher)(nil)

// Search implements [cairn.Searcher]. Words are matched as lexemes of the
// 'simple' configuration, a word of three characters or more as a prefix
// too ([cairn.PrefixWord]: no stemming here); every word must occur in the
// block. Hits are ordered by ts_rank; their Rank is the
// negated ts_rank, so that lower is better as with SQLite's bm25.
func (s *Searcher) Search(ctx context.Context, q cairn.SearchQuery) (_ []*cairn.Hit, err error) {
	defer s.db.explain(&err)
	tsq, words := tsQuery(q.Text)
	if tsq == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "Nothing to search for in %q: a query is words (letters or digits; a trailing * matches a prefix).", q.Text)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	// A query that refuses blocks (a redacted view) reads more to keep
	// limit hits after refusals.
	fetch := limit
	if q.Accept != nil {
		fetch = 4 * limit
	}
	w := searchFilter(q, tsq)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	// Each round's (or step's) best block, then the best rounds; only
	// those few are highlighted, the costly part.
	per := "b.session_id, b.round_seq"
	if q.Steps {
		per += ", b.step"
	}
	rows, err := tx.Query(ctx, `
		SELECT h.session_id, h.project, h.round_seq, b.step, h.timestamp, h.kind, b.tool_name, left(b.content, `+itoa(cairn.IndexChars)+`), -h.rank
		FROM (
			SELECT DISTINCT ON (`+per+`) b.id, b.session_id, s.project, b.round_seq, b.timestamp, b.kind,
				ts_rank(b.tsv, to_tsquery('simple', $1)) AS rank
			FROM blocks b JOIN sessions s ON s.id = b.session_id
			`+w.cond()+`
			ORDER BY `+per+`, rank DESC, b.id
		) h JOIN blocks b ON b.id = h.id
		ORDER BY h.rank DESC, h.session_id, h.round_seq, b.step
		LIMIT `+w.arg("?", fetch), w.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []*cairn.Hit
	for rows.Next() {
		var h cairn.Hit
		var text string
		if err := rows.Scan(&h.SessionID, &h.Project, &h.RoundSeq, &h.Step, scanTime{&h.Timestamp}, &h.Kind, &h.Tool, &text, &h.Rank); err != nil {
			return nil, err
		}
		indexed := cairn.IndexText(h.Kind, h.Tool, text)
		if len(hits) == limit || q.Accept != nil && !q.Accept(indexed) {
			continue
		}
		h.Ref = cairn.StepRef(h.RoundSeq, h.Step)
		h.Snippet = cairn.Snippet(indexed, words, 24) // as SQLite's: one rule for how a hit is shown
		hits = append(hits, &h)
	}
	return hits, rows.Err()
}

// searchFilter returns the conditions on blocks b and sessions s that a
// block matching tsq and passing q's filters meets; $1 is tsq.
func searchFilter(q cairn.SearchQuery, tsq string) *query {
	var w query
	w.where("b.searchable AND b.tsv @@ to_tsquery('simple', ?)", tsq)
	if q.SessionID != "" {
		w.where("b.session_id = ?", q.SessionID)
	}
	if q.Project != "" {
		w.where("s.project = ?", q.Project)
	}
	if q.Agent != "" {
		w.where("s.agent = ?", q.Agent)
	}
	if len(q.Kinds) > 0 {
		kinds := make([]string, len(q.Kinds))
		for i, k := range q.Kinds {
			kinds[i] = string(k)
		}
		w.where("b.kind = ANY(?)", kinds)
	}
	if q.Tool != "" {
		w.where("b.tool_name = ?", q.Tool)
	}
	if q.NoSurgery && q.SessionID == "" {
		w.where("(s.lineage NOT IN ('surgery', 'revive') OR b.timestamp > s.created_at)")
	}
	if !q.Since.IsZero() {
		w.where("b.timestamp >= ?", q.Since)
	}
	if !q.Until.IsZero() {
		w.where("(b.timestamp IS NULL OR b.timestamp < ?)", q.Until)
	}
	return &w
}

var _ cairn.SearchCounter = (*Searcher)(nil)

// CountHits implements [cairn.SearchCounter]: the distinct rounds (steps)
// of the first countWindow matching blocks that pass q's filters, up to
// max, phrases included (the index keeps positions).
func (s *Searcher) CountHits(ctx context.Context, q cairn.SearchQuery, max int) (_ int, _ bool, err error) {
	defer s.db.explain(&err)
	tsq, _ := tsQuery(q.Text)
	if tsq == "" {
		return 0, false, cairn.Errorf(cairn.EINVALID, "Nothing to search for in %q: a query is words (letters or digits; a trailing * matches a prefix).", q.Text)
	}
	w := searchFilter(q, tsq)
	per := "b.session_id, b.round_seq"
	if q.Steps {
		per += ", b.step"
	}
	tx, err := s.db.read(ctx)
	if err != nil {
		return 0, false, err
	}
	defer tx.Rollback(ctx)
	// At most countWindow matching blocks are read: a word in most blocks
	// of a large store is counted in the time a search takes.
	var n, read int
	if err := tx.QueryRow(ctx, `SELECT count(DISTINCT (`+strings.ReplaceAll(per, "b.", "m.")+`)), count(*) FROM (
		SELECT `+per+` FROM blocks b JOIN sessions s ON s.id = b.session_id `+w.cond()+` LIMIT `+w.arg("?", countWindow)+`) m`, w.args...).Scan(&n, &read); err != nil {
		return 0, false, err
	}
	return min(n, max), n > max || read >= countWindow, nil
}

// countWindow is how many matching blocks CountHits reads at most.
const countWindow = 20000

// tsQuery turns words into a tsquery of quoted lexemes joined by &, so
// that no character of user input is read as tsquery syntax; a word ending
// in '*' ([cairn.PrefixWord] adds one) becomes a prefix match (:*); a run of CJK characters becomes a
// phrase of them (<->), as cairn.SearchText indexed them, and so does a
// quoted phrase ([cairn.QueryPhrases]). It returns the words too, for
// snippets.
func tsQuery(text string) (string, []string) {
	words := cairn.QueryWords(text)
	terms := make([]string, len(words))
	for i, w := range words {
		w = cairn.PrefixWord(w)
		words[i] = w
		prefix, isPrefix := strings.CutSuffix(w, "*")
		// A '*' inside a word separates lexemes as any other non-word
		// character would.
		var lexemes []string
		for _, p := range strings.Fields(cairn.SearchText(strings.ReplaceAll(prefix, "*", " "))) {
			lexemes = append(lexemes, "'"+p+"'")
		}
		t := strings.Join(lexemes, " <-> ")
		if isPrefix {
			t += ":*"
		}
		if len(lexemes) > 1 {
			t = "(" + t + ")"
		}
		terms[i] = t
	}
	for _, p := range cairn.QueryPhrases(text) {
		var lexemes []string
		for _, l := range strings.Fields(cairn.SearchText(p)) {
			lexemes = append(lexemes, "'"+l+"'")
		}
		if len(lexemes) > 1 {
			terms = append(terms, "("+strings.Join(lexemes, " <-> ")+")")
		}
	}
	return strings.Join(terms, " & "), words
}
