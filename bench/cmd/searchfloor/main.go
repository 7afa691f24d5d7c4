// Command searchfloor is the least a one-shot search over a cairn store
// can do with the SQLite cairn links: open the store (the pragmas cairn's
// read connections run), rank a query's 2,000 most recently inscribed
// matches as cairn does (their lengths from block_lengths, ranked in Go),
// read the best 20 blocks' session, round and first 200 bytes, and print
// them. No cairn package but the stemmer (cairn/internal/porter), no
// migration check, no filters, no snippet (a block whose text is a view
// of its line has none to read here). The query is matched as cairn
// matches it: each word a quoted token, one of three characters or more
// also as a prefix, read as the words it begins ("error handling" is
// ("error" OR "errorhtml" OR …) AND ("handl" OR "handler" OR …)), so
// both rank the same matches. cairnbench times it beside cairn search and
// rg: what a search costs above it is cairn's own; what it costs is the
// floor of any search process built on this SQLite.
//
//	searchfloor STORE QUERY
package main

import (
	"cmp"
	"database/sql"
	"encoding/binary"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/internal/porter"

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
	// The 2,000 newest matches, and their lengths from the pages of
	// block_lengths they fall in, ranked in Go as cairn ranks them
	// (sqlite.rankMatches: bm25's length term, k1 1.2, b 0.75).
	q, err := match(db, query)
	if err != nil {
		return err
	}
	rows, err := db.Query(`SELECT rowid FROM blocks_fts WHERE blocks_fts MATCH ? ORDER BY rowid DESC LIMIT 2000`, q)
	if err != nil {
		return err
	}
	type ranked struct {
		id   int64
		n    float64
		rank float64
	}
	var all []ranked
	var pages []any
	for rows.Next() {
		var r ranked
		if err := rows.Scan(&r.id); err != nil {
			return err
		}
		if len(all) == 0 || r.id/256 != all[len(all)-1].id/256 {
			pages = append(pages, r.id/256)
		}
		all = append(all, r)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	total := 0.0
	if len(pages) > 0 {
		lens := map[int64][]byte{}
		rows, err = db.Query(`SELECT page, lens FROM block_lengths WHERE page IN (?`+strings.Repeat(", ?", len(pages)-1)+`)`, pages...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var page int64
			var b []byte
			if err := rows.Scan(&page, &b); err != nil {
				return err
			}
			lens[page] = b
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		for i, r := range all {
			if b, at := lens[r.id/256], 2*(r.id%256); int(at)+2 <= len(b) {
				all[i].n = float64(binary.LittleEndian.Uint16(b[at:]))
			}
			total += all[i].n
		}
	}
	avg := max(total/float64(max(len(all), 1)), 1)
	for i := range all {
		all[i].rank = -2.2 / (1 + 1.2*(0.25+0.75*all[i].n/avg))
	}
	// Ids are unique, so the order is total (as in cairn's).
	slices.SortFunc(all, func(a, b ranked) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return cmp.Compare(b.id, a.id)
	})
	for _, r := range all[:min(20, len(all))] {
		var session, text string
		var round int
		if err := db.QueryRow(`SELECT n.session_id, b.round_seq, substr(b.content, 1, 200) FROM blocks b JOIN session_nums n ON n.num = b.session_num WHERE b.id = ?`, r.id).Scan(&session, &round, &text); err != nil {
			return err
		}
		fmt.Printf("%s  round %03d  %q\n", session, round, text)
	}
	return nil
}

// match is query as cairn's FTS5 MATCH reads it (cairn.PrefixWord): each
// word quoted, one of three characters or more a prefix too, searched as
// the terms of index_terms its stem begins, ORed, when there are at most
// 1,024 and it does not begin with a digit (sqlite's prefixQuery). Words
// are separated by anything but letters and digits, as cairn's are; the
// bench asks only for words of letters.
func match(db *sql.DB, query string) (string, error) {
	var terms []string
	for _, w := range strings.FieldsFunc(query, func(r rune) bool { return r == ' ' || r == '"' || r == '*' }) {
		w = strings.ToLower(w)
		t := `"` + w + `"`
		if n := utf8.RuneCountInString(w); n >= 3 && '0' <= w[0] && w[0] <= '9' {
			t += "*" // left to FTS5, as cairn leaves it
		} else if n >= 3 {
			var err error
			if t, err = prefix(db, w); err != nil {
				return "", err
			}
		}
		terms = append(terms, t)
	}
	return strings.Join(terms, " AND "), nil
}

// prefix is the FTS5 query of the terms word begins.
func prefix(db *sql.DB, word string) (string, error) {
	stem := porter.Stem(word)
	rows, err := db.Query(`SELECT term, coalesce(word, term) FROM index_terms WHERE term >= ? AND term < ? LIMIT 1025`, stem, stem[:len(stem)-1]+string(stem[len(stem)-1]+1))
	if err != nil {
		return "", err
	}
	defer rows.Close()
	plain := func(t string) bool {
		return !strings.ContainsFunc(t, func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') })
	}
	var terms []string
	for rows.Next() {
		var t, named string
		if err := rows.Scan(&t, &named); err != nil {
			return "", err
		}
		if !plain(named) || porter.Stem(named) != t {
			return `"` + word + `"*`, nil
		}
		terms = append(terms, `"`+named+`"`)
	}
	if len(terms) == 0 || len(terms) > 1024 {
		return `"` + word + `"*`, rows.Err()
	}
	return "(" + strings.Join(terms, " OR ") + ")", rows.Err()
}
