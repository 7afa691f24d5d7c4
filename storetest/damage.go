package storetest

import (
	"bytes"
	"database/sql"
	"os"
	"testing"
)

// DamageSQLite overwrites the first page of every table and index of the
// SQLite store at path but the schema's and the migrations' (so it still
// opens): a store every query of which fails, for [Broken] and the tests
// of what each edge then prints. The caller has the "sqlite" driver
// registered (it imports cairn/sqlite to open the store).
func DamageSQLite(tb testing.TB, path string) {
	tb.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		tb.Fatal(err)
	}
	defer raw.Close()
	var size int64
	if err := raw.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		tb.Fatal(err)
	}
	rows, err := raw.Query(`SELECT rootpage FROM sqlite_master WHERE rootpage > 0 AND tbl_name != 'migrations'`)
	if err != nil {
		tb.Fatal(err)
	}
	var pages []int64
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			tb.Fatal(err)
		}
		pages = append(pages, p)
	}
	rows.Close()
	raw.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	junk := bytes.Repeat([]byte{0xa5}, int(size))
	for _, p := range pages {
		if _, err := f.WriteAt(junk, (p-1)*size); err != nil {
			tb.Fatal(err)
		}
	}
}
