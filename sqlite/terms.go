package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/internal/porter"
)

// A query word of three characters or more matches the words it begins
// ([cairn.PrefixWord]): FTS5 answers a prefix by reading and merging the
// whole doclist of every term it begins, in every segment, whatever the
// LIMIT, where the same terms ORed are read newest first and no further
// than the matches a search ranks: "test"* took 7.3 ms on the 1 GB bench
// store, its three terms ORed 1.6. FTS5 lists its terms only with their
// counts (fts5vocab reads every doclist to count them, as slowly), so
// the table index_terms keeps them: every term the index has held, as
// its tokenizer made it (the porter stem of a unicode61 token), and for
// one the stemmer changes again (consider, of consideration: 351 of
// 95,935 at 10 GB, but four of the 46 of "con"), a word to name it by in
// a query. It is
// written with the index ([writeTerms]): the pieces of the index texts
// this DB has not written before (a bounded set of their hashes, added
// to once the transaction commits) are stemmed ([porter.Stem]; a piece
// with other than ASCII bytes by FTS5 itself, in the scratch database)
// and their terms inserted unless there. A term whose blocks are all
// deleted stays until sessions are dropped ([pruneTerms]): a prefix that
// lists it finds no more for it. A piece that begins with a digit (a
// number, a date, many a hash) is left out, and a prefix that begins
// with one is left to FTS5: such pieces are most of the distinct ones of
// real transcripts, where few queries begin with a digit. A cairn from
// before index_terms (migration 0019) that writes into a store this one
// migrated leaves out the terms of what it indexes.

// prefixTerms bounds the terms a prefix is searched as: beyond, FTS5
// reads the prefix itself. Each term ORed costs about 0.1 ms on the
// 10 GB bench store (128 terms 33–44 ms, 1,024 terms 98–102 ms), where
// FTS5's prefix, which reads the terms' whole doclists, took 230–280 ms
// for "con" (46 terms) and 450–490 ms for "co" (102).
var prefixTerms = 1024 // a variable for tests

// seenTerms is the set of the hashes ([wordHash]) of the pieces a DB
// has written to index_terms, emptied when it reaches maxSeen, or when
// another process (or DB) has pruned index_terms since ([pruneTerms]
// records a new token in settings for it, which each index write reads).
type seenTerms struct {
	mu     sync.Mutex
	set    hashSet
	pruned string // the token of the last prune the set knows of
}

// prunedTerms is the settings row of the token of index_terms' last
// prune.
const prunedTerms = "terms_pruned"

// maxSeen bounds a seenTerms: 2^18 hashes, 4 MiB of slots.
const maxSeen = 1 << 18

// add adds the hashes of hs, written while index_terms' last prune was
// pruned, to s.
func (s *seenTerms) add(hs *hashSet, pruned string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pruned != s.pruned {
		return
	}
	for _, h := range hs.slots {
		if h == 0 {
			continue
		}
		if s.set.n >= maxSeen {
			s.set = hashSet{}
		}
		s.set.add(h)
	}
}

// A hashSet is a set of hashes (never 0), open-addressed, grown to keep
// it at most half full.
type hashSet struct {
	slots []uint64
	n     int
}

// has reports whether s holds h.
func (s *hashSet) has(h uint64) bool {
	if s.n == 0 {
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := mix(h) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// add adds h to s and reports whether it was not there.
func (s *hashSet) add(h uint64) bool {
	if 2*(s.n+1) > len(s.slots) {
		old := s.slots
		s.slots, s.n = make([]uint64, max(64, 2*len(old))), 0
		for _, e := range old {
			if e != 0 {
				s.add(e)
			}
		}
	}
	mask := uint64(len(s.slots) - 1)
	for i := mix(h) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return false
		case 0:
			s.slots[i] = h
			s.n++
			return true
		}
	}
}

// plainToken reports whether t is one token of ASCII letters and digits.
func plainToken(t string) bool {
	return t != "" && ascii(t) && strings.IndexFunc(t, func(r rune) bool { return separator(byte(r)) }) < 0
}

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// pieceHash is a piece's [wordHash], never 0 (a seenTerms' empty slot).
func pieceHash(piece string) uint64 { return max(wordHash(piece), 1) }

// writeTerms inserts into index_terms, in tx, the terms of the pieces of
// texts (index texts: pieces separated by a space, or any ASCII
// separator) that neither tx's DB nor tx has written before, and keeps
// their hashes in tx, for [Tx.Commit] to add to the DB's once they are
// committed.
func writeTerms(ctx context.Context, tx *Tx, texts map[int64]string) error {
	seen := &tx.db.terms
	var pruned string
	if err := tx.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = ?`, prunedTerms).Scan(&pruned); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	tx.termsPruned = pruned
	var list strings.Builder // the terms as a JSON array, but its closing bracket
	sep := byte('[')
	var other []string // the pieces FTS5 stems
	fresh := &tx.terms
	seen.mu.Lock()
	if pruned != seen.pruned {
		// Terms this DB wrote may be gone: it knows none.
		seen.set, seen.pruned = hashSet{}, pruned
	}
	for _, t := range texts {
		// The pieces are split as distinctWords splits them, so that a
		// text given whole (an index with positions, in tests) is read
		// alike.
		for i := 0; i < len(t); {
			for i < len(t) && separator(t[i]) {
				i++
			}
			j := i
			for j < len(t) && !separator(t[j]) {
				j++
			}
			piece := t[i:j]
			i = j
			if piece == "" || isDigit(piece[0]) {
				continue
			}
			if h := pieceHash(piece); seen.set.has(h) || !fresh.add(h) {
				continue
			}
			if ascii(piece) {
				// Letters and digits: JSON strings as they are. A term
				// the stemmer changes again goes with the word.
				word := strings.ToLower(piece)
				term := porter.Stem(word)
				list.WriteByte(sep)
				if porter.Stem(term) == term {
					list.WriteString(`"` + term + `"`)
				} else {
					list.WriteString(`["` + term + `","` + word + `"]`)
				}
				sep = ','
			} else {
				other = append(other, piece)
			}
		}
	}
	seen.mu.Unlock()
	if len(other) > 0 {
		stems, err := scratchStems(ctx, strings.Join(other, " "))
		if err != nil {
			return err
		}
		for _, t := range stems {
			q, err := json.Marshal(t)
			if err != nil {
				return err
			}
			list.WriteByte(sep)
			list.Write(q)
			sep = ','
		}
	}
	if list.Len() == 0 {
		return nil
	}
	list.WriteByte(']')
	if _, err := tx.ExecContext(ctx, `INSERT INTO index_terms (term, word)
		SELECT iif(type = 'array', value ->> 0, value), iif(type = 'array', value ->> 1, NULL) FROM json_each(?) WHERE true
		ON CONFLICT (term) DO UPDATE SET word = excluded.word WHERE index_terms.word IS NULL`, list.String()); err != nil {
		return err
	}
	return nil
}

// pruneTerms deletes, in tx, the terms of index_terms the search index
// no longer holds: what dropped sessions leave. It reads the index's
// whole vocabulary (seconds for tens of GB of transcripts), which only a
// drop, asked for by a person, does.
func pruneTerms(ctx context.Context, tx *Tx) error {
	if _, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.held_terms USING fts5vocab (main, blocks_fts, 'row')`); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM index_terms WHERE term NOT IN (SELECT term FROM temp.held_terms)`)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	// Every DB's set of the pieces it wrote may now name a term that is
	// gone: a new token has each forget its set at its next index write.
	_, err = tx.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, prunedTerms, strconv.FormatUint(rand.Uint64(), 36))
	return err
}

// prefixQuery returns the FTS5 query of the terms token (a query token,
// unstemmed) begins, as FTS5 reads `"token"*`: the terms index_terms
// lists ORed, when there are at most prefixTerms and each reads as
// itself to the tokenizer or has a word that does, else that prefix.
func prefixQuery(ctx context.Context, tx *Tx, token string) (string, error) {
	prefix := `"` + token + `"*`
	if !ascii(token) || isDigit(token[0]) {
		return prefix, nil
	}
	stem := porter.Stem(token)
	end := stem[:len(stem)-1] + string(stem[len(stem)-1]+1)
	rows, err := tx.QueryContext(ctx, `SELECT term, word FROM index_terms WHERE term >= ? AND term < ? LIMIT ?`, stem, end, prefixTerms+1)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var terms []string
	for rows.Next() {
		var t string
		var word sql.NullString
		if err := rows.Scan(&t, &word); err != nil {
			return "", err
		}
		// Each term is searched as a quoted token, which the tokenizer
		// stems again: a term it leaves as it is stands for itself,
		// another (consider) is named by a word it is the stem of
		// (consideration).
		switch {
		case plainToken(t) && porter.Stem(t) == t:
			terms = append(terms, `"`+t+`"`)
		case word.Valid && plainToken(word.String) && porter.Stem(word.String) == t:
			terms = append(terms, `"`+word.String+`"`)
		default:
			return prefix, nil
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	switch {
	case len(terms) == 0 || len(terms) > prefixTerms:
		return prefix, nil
	case len(terms) == 1:
		return terms[0], nil
	}
	return "(" + strings.Join(terms, " OR ") + ")", nil
}
