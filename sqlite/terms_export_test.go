package sqlite

import (
	"context"
	"fmt"
)

// SetPrefixTerms bounds the terms a prefix is searched as (0: every
// prefix searched as itself, as before index_terms), for tests; it
// returns the function that restores the bound.
func SetPrefixTerms(n int) (restore func()) {
	old := prefixTerms
	prefixTerms = n
	return func() { prefixTerms = old }
}

// CheckTerms reports a term of the search index that index_terms lacks
// (but one that begins with a digit, which it leaves out), and returns
// the terms the index holds.
func CheckTerms(ctx context.Context, db *DB) (terms int, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE temp.check_vocab USING fts5vocab (main, blocks_fts, 'row')`); err != nil {
		return 0, err
	}
	var missing string
	err = tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MIN(term) FILTER (WHERE term NOT IN (SELECT term FROM index_terms) AND term NOT GLOB '[0-9]*'), '') FROM temp.check_vocab`).Scan(&terms, &missing)
	if err == nil && missing != "" {
		err = fmt.Errorf("index_terms lacks %q", missing)
	}
	return terms, err
}

// PrefixQuery is the FTS5 query a search reads token's prefix as.
func PrefixQuery(ctx context.Context, db *DB, token string) (string, error) {
	tx, err := db.read(ctx)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	return prefixQuery(ctx, tx, token)
}
