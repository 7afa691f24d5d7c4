// Command searchfloor is the least a one-shot search over a cairn store
// can do with the SQLite cairn links: open the store (the pragmas cairn's
// read connections run), rank a query's 2,000 most recently inscribed
// matches by bm25 in one FTS5 statement, read the best 20 blocks' session,
// round and first 200 bytes, and print them. No cairn package, no
// migration check, no filters, no snippet (a block whose text is a view of
// its line has none to read here). The query is matched as cairn matches
// it: each word a quoted token, one of three characters or more also as a
// prefix ("error handling" is "error"* "handling"*), so both rank the
// same matches. cairnbench times it beside cairn search and rg: what a
// search costs above it is cairn's own; what it costs is the floor of any
// search process built on this SQLite.
//
//	searchfloor STORE QUERY
package main

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"unicode/utf8"

	_ "modernc.org/sqlite"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: searchfloor STORE QUERY")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "searchfloor:", err)
		os.Exit(1)
	}
}

func run(store, query string) error {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: store}).EscapedPath()+"?_pragma=busy_timeout(5000)&_pragma=cache_size(-64)")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query(`
		SELECT n.session_id, b.round_seq, substr(b.content, 1, 200) FROM (
			SELECT id, rank FROM (
				SELECT rowid AS id, bm25(blocks_fts) AS rank FROM blocks_fts WHERE blocks_fts MATCH ? ORDER BY rowid DESC LIMIT 2000
			) ORDER BY rank, id DESC LIMIT 20
		) r JOIN blocks b ON b.id = r.id JOIN session_nums n ON n.num = b.session_num`, match(query))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var session, text string
		var round int
		if err := rows.Scan(&session, &round, &text); err != nil {
			return err
		}
		fmt.Printf("%s  round %03d  %q\n", session, round, text)
	}
	return rows.Err()
}

// match is query as cairn's FTS5 MATCH reads it (cairn.PrefixWord): each
// word quoted, one of three characters or more a prefix too. Words are
// separated by anything but letters and digits, as cairn's are; the bench
// asks only for words of letters.
func match(query string) string {
	var terms []string
	for _, w := range strings.FieldsFunc(query, func(r rune) bool { return r == ' ' || r == '"' || r == '*' }) {
		t := `"` + w + `"`
		if utf8.RuneCountInString(w) >= 3 {
			t += "*"
		}
		terms = append(terms, t)
	}
	return strings.Join(terms, " ")
}
