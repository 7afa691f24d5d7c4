package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/rusage"
)

// TestFTSLayouts measures the search index's layouts on the store named
// by $CAIRN_FTS_LAYOUTS (an imported corpus): for each, the CPU time to
// index every searchable block of the store, in transactions of about
// 8 MB of text, the bytes of blocks_fts_*, and the CPU and wall time of
// ranking a few queries' newest 2000 matches (bm25 with positions; by
// length from docsize without, as rankMatches does). It is how migration
// 0014's layout was chosen; it skips without the variable. Run one
// layout with -run 'TestFTSLayouts/^column$'.
func TestFTSLayouts(t *testing.T) {
	src := os.Getenv("CAIRN_FTS_LAYOUTS")
	if src == "" {
		t.Skip("CAIRN_FTS_LAYOUTS names no store to measure")
	}
	ctx := context.Background()
	db := NewDB(src)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type doc struct {
		id   int64
		text string
	}
	var docs []doc
	size := 0
	tx, err := db.read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, kind, tool_name FROM blocks WHERE searchable = 1 ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	type meta struct {
		id         int64
		kind, tool string
	}
	var metas []meta
	for rows.Next() {
		var m meta
		if err := rows.Scan(&m.id, &m.kind, &m.tool); err != nil {
			t.Fatal(err)
		}
		metas = append(metas, m)
	}
	rows.Close()
	for i := 0; i < len(metas); i += 500 {
		part := metas[i:min(i+500, len(metas))]
		ids := make([]int64, len(part))
		for j, m := range part {
			ids[j] = m.id
		}
		texts, err := blockTexts(ctx, tx, ids, math.MaxInt32)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range part {
			s := cairn.SearchText(cairn.IndexText(cairn.BlockKind(m.kind), m.tool, texts[m.id]))
			docs = append(docs, doc{m.id, s})
			size += len(s)
		}
	}
	tx.Rollback()
	t.Logf("%d blocks, %.1f MB of index text", len(docs), float64(size)/1e6)

	queries := []string{`"error"* "handl"*`, `"test"*`, `"sqlite"* "migrat"*`, `"fts5"`}
	for _, l := range []struct{ name, options, config string }{
		{"full", "", ""},
		{"full-hash8m", "", "hashsize=8388608"},
		{"column", ", detail = column", ""},
		{"column-hash8m", ", detail = column", "hashsize=8388608"},
		{"column-hash8m-am8", ", detail = column", "hashsize=8388608 automerge=8 crisismerge=32"},
		{"column-prefix3", ", detail = column, prefix = '3'", ""},
		{"column-pgsz2000", ", detail = column", "pgsz=2000"},
		{"column-pgsz8000", ", detail = column", "pgsz=8000"},
		{"none", ", detail = none", ""},
		{"none-hash8m", ", detail = none", "hashsize=8388608"},
	} {
		t.Run(l.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "fts.db")
			d, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			d.SetMaxOpenConns(1)
			if _, err := d.Exec(`CREATE VIRTUAL TABLE blocks_fts USING fts5 (content, content = '', contentless_delete = 1,
				tokenize = 'porter unicode61 remove_diacritics 2'` + l.options + `)`); err != nil {
				t.Fatal(err)
			}
			for _, kv := range strings.Fields(l.config) {
				k, v, _ := strings.Cut(kv, "=")
				if _, err := d.Exec(`INSERT INTO blocks_fts (blocks_fts, rank) VALUES (?, ?)`, k, v); err != nil {
					t.Fatal(err)
				}
			}
			cpu0 := layoutCPU()
			for i := 0; i < len(docs); {
				var batch []any
				n := 0
				for ; i < len(docs) && n < 8<<20; i++ {
					batch = append(batch, []any{docs[i].id, docs[i].text})
					n += len(docs[i].text)
				}
				tb, _ := json.Marshal(batch)
				tx, err := d.Begin()
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Exec(`INSERT INTO blocks_fts (rowid, content) SELECT value ->> 0, value ->> 1 FROM json_each(?1)`, string(tb)); err != nil {
					t.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			write := layoutCPU() - cpu0
			var bytes int64
			if err := d.QueryRow(`SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'blocks_fts%'`).Scan(&bytes); err != nil {
				t.Fatal(err)
			}
			var line string
			for _, q := range queries {
				var hits int
				var best int64
				c0, w0 := layoutCPU(), time.Now()
				const runs = 20
				for range runs {
					query := `SELECT id, rank FROM (SELECT rowid AS id, bm25(blocks_fts) AS rank FROM blocks_fts WHERE blocks_fts MATCH ? ORDER BY rowid DESC LIMIT 2000) ORDER BY rank, id DESC LIMIT 20`
					if l.options != "" {
						query = `SELECT f.id, d.sz FROM (SELECT rowid AS id FROM blocks_fts WHERE blocks_fts MATCH ? ORDER BY rowid DESC LIMIT 2000) f JOIN blocks_fts_docsize d ON d.id = f.id`
					}
					r, err := d.Query(query, q)
					if err != nil {
						t.Fatal(err)
					}
					hits = 0
					var ranks []float64
					for r.Next() {
						var rank float64
						if l.options != "" {
							var sz []byte
							r.Scan(&best, &sz)
							rank = float64(ftsVarint(sz))
						} else {
							r.Scan(&best, &rank)
						}
						ranks = append(ranks, rank)
						hits++
					}
					r.Close()
					sort.Float64s(ranks)
					if !sort.Float64sAreSorted(ranks) {
						t.Fatalf("ranks not sorted")
					}
				}
				line += fmt.Sprintf(" %s: %d hits %.2f cpu-ms %.2f ms;", q, hits, float64((layoutCPU()-c0).Microseconds())/1000/runs, float64(time.Since(w0).Microseconds())/1000/runs)
			}
			t.Logf("%-14s blocks_fts_* %6.2f MB  write CPU %5.2f s |%s", l.name, float64(bytes)/1e6, write.Seconds(), line)
		})
	}
}

func layoutCPU() time.Duration { return rusage.Self() }

// TestSearchIndexAutomerge: the search index merges its segments eight at
// a time (migration 0017): a migration that makes blocks_fts again must
// set it again, or imports go back to spending a fifth of their CPU on
// merges.
func TestSearchIndexAutomerge(t *testing.T) {
	db := NewDB(filepath.Join(t.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.db.QueryRow(`SELECT v FROM blocks_fts_config WHERE k = 'automerge'`).Scan(&v); err != nil || v != 8 {
		t.Fatalf("automerge %d (%v), want 8", v, err)
	}
}
