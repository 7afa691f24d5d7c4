package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"sync"
)

// The search index keeps which blocks hold a token, not where (migration
// 0014), so it cannot match a phrase. A query word the tokenizer splits
// in several tokens (a run of CJK characters, snake_case, a word with an
// apostrophe) is searched as its tokens ANDed, and the blocks found are
// then checked against the phrase in a scratch in-memory FTS5 table that
// keeps positions: the same tokenizer as the index, so a block is kept
// exactly when the index with positions would have matched it. The same
// database splits non-ASCII words into tokens as the index does.

// phraseTokenizer is the search index's tokenizer.
const phraseTokenizer = `porter unicode61 remove_diacritics 2`

// phraseDB is the in-memory database of the phrase checks, opened on
// first use; mu serializes its use (one connection).
var phraseDB struct {
	mu   sync.Mutex
	once sync.Once
	db   *sql.DB
	err  error
}

func scratchDB() (*sql.DB, error) {
	phraseDB.once.Do(func() {
		db, err := sql.Open("sqlite", "file::memory:")
		if err != nil {
			phraseDB.err = err
			return
		}
		// One connection, kept: the tables are its own.
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		// words: the tokens of a query word, folded but not stemmed
		// (the query stems them); texts: blocks' texts for a phrase
		// check, with positions; stems: the index's terms of a text
		// (terms.go).
		if _, err := db.Exec(`
			CREATE VIRTUAL TABLE words USING fts5 (content, tokenize = 'unicode61 remove_diacritics 2');
			CREATE VIRTUAL TABLE words_v USING fts5vocab (words, 'instance');
			CREATE VIRTUAL TABLE texts USING fts5 (content, content = '', tokenize = '` + phraseTokenizer + `');
			CREATE VIRTUAL TABLE stems USING fts5 (content, content = '', tokenize = '` + phraseTokenizer + `');
			CREATE VIRTUAL TABLE stems_v USING fts5vocab (stems, 'row');`); err != nil {
			db.Close()
			phraseDB.err = err
			return
		}
		phraseDB.db = db
	})
	return phraseDB.db, phraseDB.err
}

// scratchTx begins a transaction on the scratch database; rolling it
// back empties its tables.
func scratchTx(ctx context.Context) (*sql.Tx, error) {
	db, err := scratchDB()
	if err != nil {
		return nil, err
	}
	return db.BeginTx(ctx, nil)
}

// wordTokens returns the tokens the search index splits word (a query
// word as [cairn.SearchText] gives it, without its '*') into, folded as
// the index folds them and unstemmed.
func wordTokens(ctx context.Context, word string) ([]string, error) {
	if ascii(word) {
		return strings.FieldsFunc(strings.ToLower(word), func(r rune) bool { return separator(byte(r)) }), nil
	}
	return scratchTokens(ctx, word)
}

// scratchTokens returns the tokens of text, in order, as the scratch
// database's tokenizer (the index's, unstemmed) reads them.
func scratchTokens(ctx context.Context, text string) ([]string, error) {
	return scratchTerms(ctx, "words", `SELECT term FROM words_v ORDER BY offset`, text)
}

// scratchStems returns the distinct terms the search index makes of
// text, sorted.
func scratchStems(ctx context.Context, text string) ([]string, error) {
	return scratchTerms(ctx, "stems", `SELECT term FROM stems_v`, text)
}

// scratchTerms writes text into the scratch database's table and returns
// the terms query reads of it; the transaction's rollback empties the
// table again.
func scratchTerms(ctx context.Context, table, query, text string) ([]string, error) {
	phraseDB.mu.Lock()
	defer phraseDB.mu.Unlock()
	tx, err := scratchTx(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (rowid, content) VALUES (1, ?)`, text); err != nil {
		return nil, err
	}
	return readColumn[string](ctx, tx, query)
}

// phraseMatches returns the ids of texts (search texts by block id) that
// match the FTS5 query match, read with positions.
func phraseMatches(ctx context.Context, match string, texts map[int64]string) (map[int64]bool, error) {
	phraseDB.mu.Lock()
	defer phraseDB.mu.Unlock()
	tx, err := scratchTx(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() // the texts go with it
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO texts (rowid, content) VALUES (?, ?)`)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	for id, t := range texts {
		if _, err := stmt.ExecContext(ctx, id, t); err != nil {
			return nil, err
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT rowid FROM texts WHERE texts MATCH ?`, match)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ok := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ok[id] = true
	}
	return ok, rows.Err()
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
