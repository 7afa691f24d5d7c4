package sqlite

import (
	"context"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
)

// StatsStore implements [cairn.StatsStore].
type StatsStore struct{ db *DB }

// NewStatsStore returns a StatsStore over db.
func NewStatsStore(db *DB) *StatsStore { return &StatsStore{db: db} }

var _ cairn.StatsStore = (*StatsStore)(nil)

// Stats implements [cairn.StatsStore].
func (s *StatsStore) Stats(ctx context.Context, withParts bool) (_ *cairn.StoreStats, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	st := &cairn.StoreStats{Location: s.db.Path, Backend: "sqlite", ByAgent: map[string]int{}}
	rows, err := tx.QueryContext(ctx, `SELECT agent, lineage = ?, COUNT(*) FROM sessions GROUP BY 1, 2`, cairn.LineageSubagent)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var agent string
		var sub bool
		var n int
		if err := rows.Scan(&agent, &sub, &n); err != nil {
			rows.Close()
			return nil, err
		}
		st.ByAgent[agent] += n
		st.Sessions += n
		if sub {
			st.Subagents += n
		}
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	var oldest, newest string
	if err := tx.QueryRowContext(ctx, `
		SELECT COALESCE(SUM(round_count), 0),
			COALESCE(MIN(COALESCE(NULLIF(ended_at, ''), NULLIF(started_at, ''), updated_at)), ''),
			COALESCE(MAX(COALESCE(NULLIF(ended_at, ''), NULLIF(started_at, ''), updated_at)), '')
		FROM sessions`).Scan(&st.Rounds, &oldest, &newest); err != nil {
		return nil, err
	}
	st.Oldest, st.Newest = parseTime(oldest), parseTime(newest)
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM blocks`).Scan(&st.Blocks); err != nil {
		return nil, err
	}
	// Every generation's lines; the bytes of the current ones as read,
	// and of an older generation as far as it was read.
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(last_no - first_no + 1), 0) FROM chunks`).Scan(&st.Lines); err != nil {
		return nil, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(src_offset), 0) FROM sessions`).Scan(&st.RawBytes); err != nil {
		return nil, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM dropped_sessions d
		WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = d.id)`).Scan(&st.Dropped); err != nil {
		return nil, err
	}
	var keep string
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(value), '0') FROM settings WHERE name = ?`, keepDaysSetting).Scan(&keep); err != nil {
		return nil, err
	}
	st.KeepDays, _ = strconv.Atoi(keep)
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(s.db.Path + suffix); err == nil {
			st.Bytes += fi.Size()
		}
	}
	if withParts {
		if st.Parts, err = parts(ctx, tx); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// parts sums dbstat's pages by what they hold, and the free pages.
func parts(ctx context.Context, tx *Tx) ([]cairn.StorePart, error) {
	sums := map[string]int64{}
	rows, err := tx.QueryContext(ctx, `SELECT name, SUM(pgsize) FROM dbstat GROUP BY name`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			rows.Close()
			return nil, err
		}
		sums[partOf(name)] += n
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	var free, size int64
	if err := tx.QueryRowContext(ctx, `SELECT freelist_count, page_size FROM pragma_freelist_count, pragma_page_size`).Scan(&free, &size); err != nil {
		return nil, err
	}
	if free > 0 {
		sums["free pages"] = free * size
	}
	out := make([]cairn.StorePart, 0, len(sums))
	for name, n := range sums {
		out = append(out, cairn.StorePart{Name: name, Bytes: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Bytes != out[j].Bytes {
			return out[i].Bytes > out[j].Bytes
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// partOf names the part of the store a table or index belongs to.
func partOf(table string) string {
	switch {
	case strings.HasPrefix(table, "blocks_fts"), table == "block_lengths", table == "index_terms":
		return "search index"
	case strings.HasPrefix(table, "chunks"):
		return "raw lines"
	case strings.HasPrefix(table, "blocks"), strings.HasPrefix(table, "staged_blocks"):
		return "blocks"
	case strings.HasPrefix(table, "rounds"), strings.HasPrefix(table, "messages"), strings.HasPrefix(table, "round_tag"),
		strings.HasPrefix(table, "sqlite_autoindex_rounds"), strings.HasPrefix(table, "sqlite_autoindex_messages"):
		return "rounds"
	case strings.HasPrefix(table, "session"), strings.HasPrefix(table, "sqlite_autoindex_session"):
		return "sessions"
	}
	return "other"
}
