package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/cairn-dev/cairn"
)

// refillMigrations are the migrations that rebuild the search index in a
// new layout: the SQL of each empties the index and lists in refill the
// blocks to index again, and [DB.refill] indexes them, after every
// migration's SQL, recording them all with the last. Each maps to what
// the index's definition holds once its SQL has run ("": anything), so
// that a store a killed open left refilling goes on with its refill
// rather than running the SQL again, while an older layout's refill
// (0014's, on a store that had neither) is begun again in the newer.
var refillMigrations = map[string]string{
	"migration/0014_search_layout.sql":      "",
	"migration/0020_search_detail_none.sql": "detail = none",
}

// refillBlocks is how many blocks one transaction of the refill indexes:
// a few MB of text, a fraction of a second of the write lock.
var refillBlocks = 4096 // a variable for tests

// refilled, when not nil, is called after each transaction of a refill
// (tests).
var refilled func()

// refill indexes the blocks refill lists, refillBlocks to a transaction,
// each recording where the next begins, and the last recording every
// refill migration as done. Killed at any point, or stopped after
// [DB.RefillFor], it carries on where it stopped when the store is next
// opened.
func (db *DB) refill() error {
	ctx := db.ctx
	if db.OnRefill != nil {
		if left, err := db.refillLeft(ctx); err == nil && left > 0 {
			db.OnRefill(left)
		}
	}
	start := time.Now()
	for {
		done, err := db.refillSome(ctx)
		if err != nil || done {
			return err
		}
		if refilled != nil {
			refilled()
		}
		if db.RefillFor > 0 && time.Since(start) >= db.RefillFor {
			return nil
		}
	}
}

// refillLeft is about how many blocks the refill has left: the ids it
// has yet to read, deleted and unsearchable ones included (counting the
// blocks would read millions of rows).
func (db *DB) refillLeft(ctx context.Context) (int64, error) {
	var left int64
	err := db.db.QueryRowContext(ctx, `SELECT max(last - next + 1, 0) FROM refill`).Scan(&left)
	return left, err
}

// refillSome indexes the next refillBlocks blocks in one transaction and
// reports whether they were the last.
func (db *DB) refillSome(ctx context.Context) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	// Another process opening the store may have finished the refill.
	var started int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'refill'`).Scan(&started); err != nil || started == 0 {
		return true, err
	}
	var next, last int64
	if err := tx.QueryRowContext(ctx, `SELECT next, last FROM refill`).Scan(&next, &last); err != nil {
		return false, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+viewedColumns+`
		WHERE b.id BETWEEN ? AND ? AND b.searchable = 1 ORDER BY b.id LIMIT ?`, next, last, refillBlocks)
	if err != nil {
		return false, err
	}
	blocks, err := viewedBlocks(ctx, tx, rows, unreadable)
	if err != nil {
		return false, err
	}
	idx := tx.pendingIndex()
	for _, b := range blocks {
		idx.addText(b, indexText(b))
	}
	done := len(blocks) < refillBlocks
	if done {
		if _, err = tx.ExecContext(ctx, `DROP TABLE refill`); err == nil {
			for name := range refillMigrations {
				if _, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO migrations (name) VALUES (?)`, name); err != nil {
					break
				}
			}
		}
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE refill SET next = ?`, blocks[len(blocks)-1].ID+1)
	}
	if err != nil {
		return false, err
	}
	return done, tx.Commit()
}

// viewedColumns selects what viewedBlocks reads of blocks b, for a
// query to go on with its conditions.
const viewedColumns = `b.id, n.session_id, b.line_no, b.kind, b.tool_name, b.content, b.span FROM blocks b JOIN session_nums n ON n.num = b.session_num`

// viewedBlocks reads rows of viewedColumns as blocks with their text,
// read from their lines where it is a view. Rows in order of id or of
// line read each chunk once. A text that cannot be read (its chunk
// damaged or gone) fails the read, unless unread, when not nil, returns
// nil for its error: the block is then given with no text.
func viewedBlocks(ctx context.Context, tx *Tx, rows *sql.Rows, unread func(error) error) ([]*cairn.Block, error) {
	var blocks []*cairn.Block
	var spans []sql.NullInt64
	for rows.Next() {
		b := &cairn.Block{}
		var span sql.NullInt64
		if err := rows.Scan(&b.ID, &b.SessionID, &b.LineNo, codedKind{&b.Kind}, &b.ToolName, &b.Content, &span); err != nil {
			rows.Close()
			return nil, err
		}
		blocks, spans = append(blocks, b), append(spans, span)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	lines := chunkReader{known: tx.viewing}
	for i, b := range blocks {
		if !spans[i].Valid {
			continue
		}
		raw, err := lines.line(ctx, tx, b.SessionID, b.LineNo)
		if err == nil {
			if b.Content, err = unpackView(spans[i].Int64).text(raw); err != nil {
				err = &cairn.Damaged{Session: b.SessionID, First: b.LineNo, Last: b.LineNo, Err: fmt.Errorf("block %d's text: %w", b.ID, err)}
			}
		}
		if err != nil {
			if unread == nil {
				return nil, err
			}
			if err := unread(err); err != nil {
				return nil, err
			}
			b.Content = ""
		}
	}
	return blocks, nil
}

// unreadable lets a refill go on past a block whose text a damaged or
// missing chunk holds: the block is indexed without words, as a damaged
// session's are until `cairn reindex` has it imported again, and the
// store opens. Any other error stops it.
func unreadable(err error) error {
	var d *cairn.Damaged
	if errors.As(err, &d) || cairn.ErrorCode(err) == cairn.ENOTFOUND {
		return nil
	}
	return err
}

// A chunkReader reads raw lines of the current generation of sessions,
// keeping the last chunk it decompressed: blocks read in id order view
// the lines of one chunk after another.
type chunkReader struct {
	session     string
	first, last int
	offs        []int // where each line of the chunk ends in raw
	raw         []byte

	// known, when set, holds lines of its session's current generation
	// already at hand: an import retiring the round it grows has read
	// that round's lines to rebuild it (cairn.Inscription.Stored), and a
	// hook's import then neither compiles the chunks' statement again
	// nor decompresses their chunk.
	known *lineSource
}

// line returns line no of session id's current generation.
func (r *chunkReader) line(ctx context.Context, tx *Tx, id string, no int) ([]byte, error) {
	if r.known != nil && id == r.known.session {
		if raw, ok := r.known.lines[no]; ok {
			return raw, nil
		}
	}
	if id != r.session || no < r.first || no > r.last {
		if err := r.load(ctx, tx, id, no); err != nil {
			return nil, err
		}
	}
	i := no - r.first
	start := 0
	if i > 0 {
		start = r.offs[i-1]
	}
	return r.raw[start:r.offs[i]:r.offs[i]], nil
}

// load decompresses the chunk that holds line no of session id.
func (r *chunkReader) load(ctx context.Context, tx *Tx, id string, no int) error {
	var cid int64
	var gen int
	var z, meta []byte
	var c codec
	r.session = ""
	if err := tx.QueryRowContext(ctx, `SELECT id, generation, first_no, last_no, data, meta, codec FROM chunks
		WHERE session_id = ?1 AND generation = (SELECT generation FROM sessions WHERE id = ?1) AND first_no <= ?2
		ORDER BY first_no DESC LIMIT 1`, id, no).Scan(&cid, &gen, &r.first, &r.last, &z, &meta, &c); err != nil {
		return notFound(err, "Session %s has no line %d.", id, no)
	}
	if no > r.last {
		return cairn.Errorf(cairn.ENOTFOUND, "Session %s has no line %d.", id, no)
	}
	at := &cairn.Damaged{Session: id, Generation: gen, First: r.first, Last: r.last}
	var err error
	switch c {
	case codecZstd, codecPacked:
		r.raw, err = zstdDecoder().DecodeAll(z, r.raw[:0])
	default:
		r.raw, err = decompress(c, z)
	}
	if err != nil {
		at.Err = fmt.Errorf("chunk %d: %w", cid, err)
		return at
	}
	sizes, err := metaSizes(cid, c, meta, r.last-r.first+1, nil)
	if err != nil {
		at.Err = err
		return at
	}
	r.offs = r.offs[:0]
	off := 0
	for i, size := range sizes {
		if off+size > len(r.raw) {
			at.Err = fmt.Errorf("chunk %d: meta of line %d does not fit its %d bytes", cid, r.first+i, len(r.raw))
			return at
		}
		off += size
		r.offs = append(r.offs, off)
	}
	r.session = id
	return nil
}
