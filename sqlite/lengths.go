package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"

	modernc "modernc.org/sqlite"
)

// A search ranks its newest matches by their lengths ([rankMatches]).
// FTS5 keeps each block's length in its docsize table, a row per block:
// the 2,000 matches a search ranks were 2,000 seeks there, 2.4 ms of a
// 16 ms search process at 1 GB. The table block_lengths holds the same lengths
// packed, lengthsPerPage ids to a row (page = id / lengthsPerPage), each
// in two bytes (little-endian; 0 for an id without one, 65,535 for any
// longer), so the matches of a query, which crowd into the newest ids,
// are read in a few rows: 2 bytes of store per block, a fifth of what
// docsize keeps for it (which FTS5 needs to delete a block's entry).
//
// The table is written from docsize, by SQL ([writeLengths]), whenever
// the index is; a length left behind by a deleted block is never read,
// as the index no longer finds its id, and is overwritten when the id is
// given again. A length missing (a store whose index a killed process
// left half refilled) is read from docsize.

// lengthsPerPage is how many ids' lengths a row of block_lengths holds:
// 512 bytes, so a search whose matches are scattered reads little more
// per match than docsize's row.
const lengthsPerPage = 256

// perPage is lengthsPerPage in SQL.
var perPage = strconv.Itoa(lengthsPerPage)

// lengthsFunc is the SQL aggregate that packs lengths into a page:
// lengthsFunc(id, sz) over the docsize rows (id, sz) of one page.
const lengthsFunc = "cairn_lengths"

// overlayFunc is the SQL function overlayFunc(old, new) that returns page
// old with the lengths page new holds written over it.
const overlayFunc = "cairn_lengths_overlay"

// writeLengths writes, in tx, the lengths of the indexed blocks whose ids
// are lo to hi into block_lengths, from the index's docsize.
func writeLengths(ctx context.Context, tx *Tx, lo, hi int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO block_lengths (page, lens)
		SELECT id / `+perPage+`, `+lengthsFunc+`(id, sz) FROM blocks_fts_docsize WHERE id BETWEEN ?1 AND ?2 GROUP BY id / `+perPage+`
		ON CONFLICT (page) DO UPDATE SET lens = `+overlayFunc+`(lens, excluded.lens)`, lo, hi)
	return err
}

// pruneLengths deletes, in tx, the rows of block_lengths whose ids are
// all free: what dropped sessions leave.
func pruneLengths(ctx context.Context, tx *Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM block_lengths AS l
		WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE id BETWEEN l.page * `+perPage+` AND (l.page + 1) * `+perPage+` - 1)`)
	return err
}

// blockLengths returns the length of each block of ids, sorted (either
// way), as FTS5 counted its tokens.
func blockLengths(ctx context.Context, tx *Tx, ids []int64) ([]int, error) {
	lengths := make([]int, len(ids))
	if len(ids) == 0 {
		return lengths, nil
	}
	// The ids of a page are a run of ids: runs[page] is where it starts.
	runs := make(map[int64]int, len(ids)/8)
	pages := make([]any, 0, len(ids)/8)
	for i, id := range ids {
		if p := id / lengthsPerPage; i == 0 || p != ids[i-1]/lengthsPerPage {
			runs[p] = i
			pages = append(pages, p)
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT page, lens FROM block_lengths WHERE page IN (?`+strings.Repeat(", ?", len(pages)-1)+`)`, pages...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var page int64
		var lens sql.RawBytes
		if err := rows.Scan(&page, &lens); err != nil {
			return nil, err
		}
		for i := runs[page]; i < len(ids) && ids[i]/lengthsPerPage == page; i++ {
			lengths[i] = lengthAt(lens, int(ids[i]%lengthsPerPage))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	return lengths, fromDocsize(ctx, tx, ids, lengths)
}

// fromDocsize sets each zero of lengths, the length of ids' block at the
// same place, from the index's docsize.
func fromDocsize(ctx context.Context, tx *Tx, ids []int64, lengths []int) error {
	var missing []any
	at := map[int64]int{}
	for i, n := range lengths {
		if n == 0 {
			missing, at[ids[i]] = append(missing, ids[i]), i
		}
	}
	if len(missing) == 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, sz FROM blocks_fts_docsize WHERE id IN (?`+strings.Repeat(", ?", len(missing)-1)+`)`, missing...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var sz []byte
		if err := rows.Scan(&id, &sz); err != nil {
			return err
		}
		lengths[at[id]] = int(ftsVarint(sz))
	}
	return rows.Err()
}

// lengthAt reads the length at slot i of page lens (0 past its end).
func lengthAt(lens []byte, i int) int {
	if 2*i+2 > len(lens) {
		return 0
	}
	return int(binary.LittleEndian.Uint16(lens[2*i:]))
}

// putLength writes length n at slot i of page lens, as long as the page
// is, saturating at the most two bytes hold.
func putLength(lens []byte, i int, n uint64) {
	binary.LittleEndian.PutUint16(lens[2*i:], uint16(min(n, 0xffff)))
}

// packedLengths is an invocation of lengthsFunc: the page it packs.
type packedLengths struct{ page []byte }

func (p *packedLengths) Step(_ *modernc.FunctionContext, args []driver.Value) error {
	id, ok := args[0].(int64)
	sz, _ := args[1].([]byte)
	if !ok || id < 0 {
		return errors.New(lengthsFunc + ": an id that is not a block's")
	}
	if p.page == nil {
		p.page = make([]byte, 2*lengthsPerPage)
	}
	putLength(p.page, int(id%lengthsPerPage), ftsVarint(sz))
	return nil
}

func (p *packedLengths) WindowInverse(*modernc.FunctionContext, []driver.Value) error {
	return errors.New(lengthsFunc + " is not a window function")
}

func (p *packedLengths) WindowValue(*modernc.FunctionContext) (driver.Value, error) {
	return p.page, nil
}

func (p *packedLengths) Final(*modernc.FunctionContext) {}

func init() {
	modernc.MustRegisterFunction(lengthsFunc, &modernc.FunctionImpl{
		NArgs:         2,
		Deterministic: true,
		MakeAggregate: func(modernc.FunctionContext) (modernc.AggregateFunction, error) { return &packedLengths{}, nil },
	})
	modernc.MustRegisterDeterministicScalarFunction(overlayFunc, 2, func(_ *modernc.FunctionContext, args []driver.Value) (driver.Value, error) {
		old, _ := args[0].([]byte)
		lens, _ := args[1].([]byte)
		out := make([]byte, 2*lengthsPerPage)
		copy(out, old)
		for i := range lengthsPerPage {
			if n := lengthAt(lens, i); n > 0 {
				putLength(out, i, uint64(n))
			}
		}
		return out, nil
	})
}
